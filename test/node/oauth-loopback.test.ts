/**
 * The OAuth flow over real sockets: the authorization server and the protected MCP server
 * each on their own loopback listener (two origins, as in deployment), reached with the
 * library's default global fetch, no `http.fetch`. The shared suite (test/core/oauth.suite.ts)
 * covers the cases in process in every runtime; this shows nothing there depended on a
 * custom fetch or a single origin, and that what close() and a redirect do to a token request
 * holds for a real connection: a third listener, another origin, records whatever reaches it.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { FlowFetch } from '../../src/core/mcp/oauth-fetch.js';
import { ConfigError, SourceError, mcp } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { pick, run, until } from '../core/helpers.js';
import { TestProvider } from '../fixtures/oauth-provider.js';
import { createProtectedWorld, type ProtectedWorld } from '../fixtures/oauth-resource.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
let world: ProtectedWorld;
let mcpUrl: string;
let asOrigin: string;
let elsewhere: string;
/** Every request that reached the third origin, as `METHOD path body`. */
const arrived: string[] = [];
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
  asOrigin = await listen((request) => world.as.app.fetch(request));
  mcpUrl = `${await listen((request) => world.resourceApp.fetch(request))}/mcp`;
  world = createProtectedWorld({ mcpUrl, asOrigin });
  const recorder = new Hono().all('*', async (c) => {
    arrived.push(`${c.req.method} ${new URL(c.req.url).pathname} ${await c.req.text()}`);
    return c.json({ access_token: 'stolen', token_type: 'Bearer' });
  });
  elsewhere = await listen((request) => recorder.fetch(request));
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

  it('close() after connect.timeout closes the connection of a token request that is never answered', async () => {
    world.as.register('machine', 'machine-secret-0123456789');
    world.as.tokenEndpoint({ stall: true });
    const host = new TestProvider({ serverUrl: mcpUrl, fetch, clientCredentials: true, client: { client_id: 'machine', client_secret: 'machine-secret-0123456789' } });
    const source = mcp({ transport: 'streamable-http', url: mcpUrl, http: { authProvider: host }, timeouts: { connectMs: 400 } });
    try {
      const error = await source.tools().then(() => undefined, (e: unknown) => e);
      expect(ConfigError.is(error) && error.code).toBe('connect.timeout');
      await source.close();
      // The listener saw its client go: the request's signal fired on the server side.
      await until(() => world.as.held.at(-1) === 'aborted', 'the token request to be dropped', 2_000);
      expect(host.calls).not.toContain('saveTokens');
    } finally {
      world.as.tokenEndpoint(undefined);
      await source.close();
    }
  });

  it('close() during the flow, with no timeout set, drops a token request that is never answered before it resolves', async () => {
    world.as.register('machine', 'machine-secret-0123456789');
    world.as.tokenEndpoint({ stall: true });
    const host = new TestProvider({ serverUrl: mcpUrl, fetch, clientCredentials: true, client: { client_id: 'machine', client_secret: 'machine-secret-0123456789' } });
    const source = mcp({ transport: 'streamable-http', url: mcpUrl, http: { authProvider: host } });
    try {
      const listing = source.tools().then(() => undefined, (e: unknown) => e);
      const index = world.as.held.length;
      await until(() => world.as.held[index] === 'stalled', 'the token request to be held');
      const started = Date.now();
      await source.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      const error = await listing;
      expect(SourceError.is(error) && error.code).toBe('source.closed');
      // Nothing but close() could end it: the listener sees its client go.
      await until(() => world.as.held[index] === 'aborted', 'the token request to be dropped', 2_000);
      const after = host.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(host.calls.slice(after)).toEqual([]);
      expect(host.calls).not.toContain('saveTokens');
    } finally {
      world.as.tokenEndpoint(undefined);
      await source.close();
    }
  });

  it('a token request redirected to another origin is refused; the client secret never reaches it', async () => {
    world.as.register('machine', 'machine-secret-0123456789');
    world.as.tokenEndpoint({ redirectTo: elsewhere });
    const host = new TestProvider({ serverUrl: mcpUrl, fetch, clientCredentials: true, client: { client_id: 'machine', client_secret: 'machine-secret-0123456789' } });
    await using source = mcp({ transport: 'streamable-http', url: mcpUrl, http: { authProvider: host } });
    try {
      const error = await source.tools().then(() => undefined, (e: unknown) => e as Error);
      expect(error?.message).toContain(`was redirected to another origin, ${elsewhere}`);
      expect(arrived).toEqual([]);
    } finally {
      world.as.tokenEndpoint(undefined);
    }
  });

  it("the flow's own requests never have a redirect followed by the platform, whatever they ask", async () => {
    // What the SDK's token request would be if it left redirects to fetch: a POST carrying a
    // secret, default redirect mode, to an endpoint that answers 307 to another origin.
    world.as.tokenEndpoint({ redirectTo: elsewhere });
    try {
      const flow = new FlowFetch((input, init) => fetch(input, init), new URL(mcpUrl));
      const request = flow.fetch(`${asOrigin}/token`, { method: 'POST', body: 'client_secret=machine-secret-0123456789' });
      await expect(request).rejects.toThrow(`redirected to another origin, ${elsewhere}`);
      expect(arrived).toEqual([]);
    } finally {
      world.as.tokenEndpoint(undefined);
    }
  });

  it('without a provider, the 401 names the challenge, with the server\'s metadata URL', async () => {
    await using source = mcp({ transport: 'streamable-http', url: mcpUrl });
    const error = await source.tools().then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toContain(`resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"`);
  });
});
