/**
 * streamable-http against the SDK's web-standard server, called through `http.fetch` with no
 * socket (the same handler serves a real loopback socket in the Node-only tests).
 */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { intercept } from '../fixtures/hostile-wire.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, expectSourceError, pick, run, until } from './helpers.js';

const URL_ = 'https://mcp.test/mcp';

export function httpSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  h.describe('streamable-http', () => {
    h.it('imports and calls tools over a web-standard server', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch }, prefix: 'wb' });
      const tools = await source.tools();
      h.expect(tools.map((t) => t.name)).toContain('wb_add_note');
      const result = await run(h, pick(tools, 'wb_add_note'), { title: 'x', body: 'y' });
      h.expect(result).toMatchObject({ isError: false, output: { title: 'x', count: 1 } });
    });

    h.it('the header hook runs before every wire request, and the server sees each value', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let hookCalls = 0;
      const headers = async () => {
        hookCalls += 1;
        await Promise.resolve();
        return { authorization: `Bearer token-${hookCalls}` };
      };
      const source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch, headers } });
      const tools = await source.tools();
      await run(h, pick(tools, 'list_notes'), {});
      await until(() => endpoint.requests.some((r) => r.method === 'GET'), 'the notification stream');
      await source.close();
      // One hook call per wire request, and each request carried a token no other one did.
      h.expect(endpoint.requests.length).toBe(hookCalls);
      const tokens = endpoint.requests.map((r) => r.authorization);
      h.expect(new Set(tokens).size).toBe(tokens.length);
      h.expect(tokens.every((t) => t?.startsWith('Bearer token-'))).toBe(true);
      const methods = new Set(endpoint.requests.map((r) => r.method));
      h.expect([...methods].sort()).toEqual(['DELETE', 'GET', 'POST']);
    });

    h.it('a token rotated in the header hook is carried by the next request, with no reconnect', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, () => undefined);
      let token = 'first';
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers: () => ({ authorization: `Bearer ${token}` }) } });
      const list = pick(await source.tools(), 'list_notes');
      h.expect(await run(h, list, {})).toMatchObject({ isError: false });
      token = 'second';
      h.expect(await run(h, list, {})).toMatchObject({ isError: false });
      const calls = fetch.seen.filter((e) => e.method === 'tools/call').map((e) => e.authorization);
      h.expect(calls).toEqual(['Bearer first', 'Bearer second']);
      h.expect(fetch.initializes).toBe(1);
      h.expect(fetch.seen.filter((e) => e.method === 'initialize').map((e) => e.authorization)).toEqual(['Bearer first']);
    });

    h.it('a 401 on a call in a live session fails that call (unavailable), keeps the session and is not retried', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let calls = 0;
      const fetch = intercept(endpoint.fetch, (exchange) => {
        if (exchange.method !== 'tools/call') return undefined;
        calls += 1;
        return calls === 1 ? new Response('token expired', { status: 401 }) : undefined;
      });
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers: { authorization: 'Bearer old' } } });
      const tools = await source.tools();
      h.expect(fetch.initializes).toBe(1);
      const rejected = await run(h, pick(tools, 'list_notes'), {});
      h.expect(rejected).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(rejected.output).toContain('token expired');
      // Exactly one POST for that call: the library did not retry it.
      h.expect(fetch.seen.filter((e) => e.method === 'tools/call')).toHaveLength(1);
      h.expect(fetch.initializes).toBe(1);
      // The session was kept: the next call goes out on it, with no new initialize.
      h.expect(await run(h, pick(tools, 'add_note'), { title: 'after', body: '' })).toMatchObject({ isError: false, output: { title: 'after', count: 1 } });
      h.expect(fetch.seen.filter((e) => e.method === 'tools/call')).toHaveLength(2);
      h.expect(fetch.initializes).toBe(1);
      h.expect(endpoint.sessions.size).toBe(1);
    });

    h.it('a static header record is sent on every request', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      await using source = mcp({
        transport: 'streamable-http',
        url: URL_,
        http: { fetch: endpoint.fetch, headers: { authorization: 'Bearer fixed' } },
      });
      await source.tools();
      h.expect(endpoint.requests.length).toBeGreaterThan(1);
      h.expect(endpoint.requests.every((r) => r.authorization === 'Bearer fixed')).toBe(true);
    });

    h.it('a rejected request is not retried by the library (no invented 401 retry)', async () => {
      let attempts = 0;
      const unauthorized = async () => {
        attempts += 1;
        return new Response('unauthorized', { status: 401 });
      };
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: unauthorized } });
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain(source.id);
      h.expect(attempts).toBe(1);
    });

    h.it('a failing header hook fails the request typed, without leaking header values', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const headers = () => ({ authorization: 'Bearer s3cret\nvalue' });
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch, headers } });
      const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
      h.expect(message).toContain('authorization');
      h.expect(message).not.toContain('s3cret');
      h.expect(endpoint.requests.length).toBe(0);
    });

    for (const contentType of ['application/json', 'text/event-stream']) {
      h.it(`an endless ${contentType} response is cut at 10 MB, not buffered`, async () => {
        let sent = 0;
        const endless = async () => {
          const chunk = new TextEncoder().encode(contentType === 'application/json' ? ' '.repeat(65_536) : 'data: ' + 'x'.repeat(65_530));
          const body = new ReadableStream<Uint8Array>({
            pull(controller) {
              sent += chunk.byteLength;
              controller.enqueue(chunk);
            },
          });
          return new Response(body, { status: 200, headers: { 'content-type': contentType } });
        };
        await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endless } });
        const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
        h.expect(message).toContain('more than 10485760 bytes');
        h.expect(sent).toBeLessThan(12 * 1024 * 1024);
      });
    }

    h.it('a forgotten session answered with 400 (as SDK servers do) also reconnects', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer, 400);
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch } });
      const tools = await source.tools();
      await endpoint.forgetSessions();
      h.expect(await run(h, pick(tools, 'list_notes'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(await run(h, pick(tools, 'add_note'), { title: 'x', body: '' })).toMatchObject({ isError: false });
    });

    h.it('a header hook returning something that is not a record fails typed', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const headers = (() => undefined) as unknown as () => Record<string, string>;
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch, headers } });
      const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
      h.expect(message).toContain('http.headers hook must return');
    });

    h.it('a session the server forgot fails the call as unavailable; the next call reconnects', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch } });
      const tools = await source.tools();
      await endpoint.forgetSessions();
      const lost = await run(h, pick(tools, 'list_notes'), {});
      h.expect(lost).toMatchObject({ isError: true, reason: 'unavailable' });
      const again = await run(h, pick(tools, 'add_note'), { title: 'back', body: '' });
      h.expect(again).toMatchObject({ isError: false, output: { title: 'back', count: 1 } });
      h.expect(endpoint.sessions.size).toBe(1);
    });
  });
}
