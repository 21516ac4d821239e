/**
 * The OAuth flow over real sockets: the authorization server and the protected MCP server
 * each on their own loopback listener (two origins, as in deployment), reached with the
 * library's default global fetch, no `http.fetch`. The shared suite (test/core/oauth.suite.ts)
 * covers the cases in process in every runtime; this shows nothing there depended on a
 * custom fetch or a single origin.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcp } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { pick, run } from '../core/helpers.js';
import { TestProvider } from '../fixtures/oauth-provider.js';
import { createProtectedWorld, type ProtectedWorld } from '../fixtures/oauth-resource.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
let world: ProtectedWorld;
let mcpUrl: string;
const servers: ServerType[] = [];

/** A listener whose handler is bound later: the world needs the listeners' origins first. */
async function listen(handle: (request: Request) => Response | Promise<Response>): Promise<string> {
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: handle, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const asOrigin = await listen((request) => world.as.app.fetch(request));
  mcpUrl = `${await listen((request) => world.resourceApp.fetch(request))}/mcp`;
  world = createProtectedWorld({ mcpUrl, asOrigin });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('http.authProvider over loopback TCP, two origins, global fetch', () => {
  it('authorizes with dynamic registration and PKCE, calls, refreshes, and steps up the scope', async () => {
    const host = new TestProvider({ serverUrl: mcpUrl, fetch: (input, init) => fetch(input, init) });
    await using source = mcp({ transport: 'streamable-http', url: mcpUrl, http: { authProvider: host } });
    const tools = await source.tools();
    expect(JSON.stringify(await run(h, pick(tools, 'whoami'), {}))).toContain('a reader');
    world.as.expireAccessTokens();
    expect(JSON.stringify(await run(h, pick(tools, 'whoami'), {}))).toContain('a reader');
    expect(JSON.stringify(await run(h, pick(tools, 'write_note'), {}))).toContain('written');
    expect(world.as.log).toEqual(['register', 'authorization_code', 'refresh_token', 'authorization_code']);
    expect(host.authorizedScopes).toEqual(['read', 'read write']);
  });

  it('without a provider, the 401 names the challenge, with the server\'s metadata URL', async () => {
    await using source = mcp({ transport: 'streamable-http', url: mcpUrl });
    const error = await source.tools().then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toContain(`resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"`);
  });
});
