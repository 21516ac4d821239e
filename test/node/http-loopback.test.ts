/**
 * streamable-http over a real loopback socket: the SDK's web-standard server transport behind
 * a Hono app served by @hono/node-server, and the registry's server-everything in its own
 * streamable HTTP mode.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { mcp } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { expectSourceError, pick, run } from '../core/helpers.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { EVERYTHING } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
const endpoint = createMcpEndpoint(createWorkbenchServer);
let server: ServerType;
let url: string;

beforeAll(async () => {
  const app = new Hono().all('/mcp', (c) => endpoint.handle(c.req.raw));
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await endpoint.forgetSessions();
  await new Promise((resolve) => server.close(resolve));
});

describe('streamable-http on loopback (Hono + @hono/node-server)', () => {
  it('imports and calls tools, with a rotating token on every request', async () => {
    endpoint.requests.length = 0;
    let n = 0;
    const source = mcp({ transport: 'streamable-http', url, http: { headers: () => ({ authorization: `Bearer t${++n}` }) } });
    const tools = await source.tools();
    expect(await run(h, pick(tools, 'add_note'), { title: 'a', body: 'b' })).toMatchObject({ output: { count: 1 } });
    await source.close();
    expect(endpoint.requests.length).toBe(n);
    expect(endpoint.requests.map((r) => r.authorization)).toEqual(Array.from({ length: n }, (_, i) => `Bearer t${i + 1}`));
    expect(new Set(endpoint.requests.map((r) => r.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
    // close() sent DELETE, so the server ended the session.
    expect(endpoint.sessions.size).toBe(0);
  });

  it('a refused connection is source.unavailable, and close() resolves', async () => {
    const source = mcp({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' });
    await expectSourceError(h, () => source.tools(), 'source.unavailable');
    await source.close();
  });

  it('a server restart (sessions forgotten) is recovered by reconnecting', async () => {
    await using source = mcp({ transport: 'streamable-http', url });
    const tools = await source.tools();
    await endpoint.forgetSessions();
    expect(await run(h, pick(tools, 'list_notes'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
    expect(await run(h, pick(tools, 'list_notes'), {})).toMatchObject({ isError: false });
  });
});

describe('streamable-http against @modelcontextprotocol/server-everything', () => {
  it('imports and calls its tools over its own HTTP server', async () => {
    const port = await freePort();
    const child = spawn(EVERYTHING, ['streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let log = '';
        child.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited early (${code}): ${log}`)));
      });
      await using source = mcp({ transport: 'streamable-http', url: `http://127.0.0.1:${port}/mcp`, prefix: 'ev' });
      const tools = await source.tools();
      expect(tools.length).toBeGreaterThanOrEqual(10);
      expect(await run(h, pick(tools, 'ev_echo'), { message: 'over http' })).toMatchObject({ isError: false, output: 'Echo: over http' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}
