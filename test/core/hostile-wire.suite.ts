/**
 * How failures on the wire are read (issue 8, findings 4, 6, 7 and 13b): a server's JSON-RPC
 * error is the server talking, whatever its code, and never drops the session; one failed
 * HTTP request fails one call; every step of the handshake is bounded; a header hook that
 * misbehaves is refused typed, naming the header, and nothing is sent.
 */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { intercept, json, never, serverErrorServer } from '../fixtures/hostile-wire.js';
import { flavours } from './flavours.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, pick, run } from './helpers.js';

const URL_ = 'https://wire.test/mcp';

export function hostileWireSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  h.describe('server errors are read by origin', () => {
    for (const flavour of flavours(h)) {
      for (const code of [-32000, -32001, -32603, 42]) {
        h.it(`${flavour.name}: JSON-RPC error ${code} from the server is server_error and keeps the session`, async () => {
          const server = serverErrorServer(code);
          await using source = flavour.open(() => server);
          const tools = await source.tools();
          for (let i = 0; i < 3; i += 1) {
            const failed = await run(h, pick(tools, 'fail'), {});
            h.expect(failed).toMatchObject({ isError: true, reason: 'server_error' });
            h.expect(failed.output).toContain(`JSON-RPC error ${code}`);
            h.expect(failed.output).toContain('application failure');
          }
          h.expect(await run(h, pick(tools, 'ok'), {})).toMatchObject({ isError: false, output: 'ok' });
          h.expect(server.connects).toBe(1);
          h.expect(server.calls).toBe(4);
        });
      }
    }
  });

  h.describe('a session is lost on evidence only', () => {
    h.it('one dropped POST fails that call alone; 199 concurrent calls complete on the same session', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let calls = 0;
      const fetch = intercept(endpoint.fetch, (exchange) => {
        if (exchange.method !== 'tools/call') return undefined;
        calls += 1;
        return calls === 57 ? Promise.reject(new TypeError('fetch failed: connection reset')) : undefined;
      });
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch } });
      const add = pick(await source.tools(), 'add_note');
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(h, add, { title: `n${i}`, body: '' })));
      const failed = results.filter((r) => r.isError);
      h.expect(failed).toHaveLength(1);
      h.expect(failed[0]).toMatchObject({ reason: 'unavailable' });
      h.expect(failed[0]?.output).toContain('connection reset');
      h.expect(fetch.initializes).toBe(1);
      h.expect(await run(h, add, { title: 'after', body: '' })).toMatchObject({ isError: false });
      h.expect(fetch.initializes).toBe(1);
    });

    h.it('a JSON-RPC error answered with the id as a string is still the server talking', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, (exchange) =>
        exchange.method === 'tools/call'
          ? json({ jsonrpc: '2.0', id: String(exchange.id), error: { code: -32000, message: 'string id' } })
          : undefined,
      );
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch } });
      const list = pick(await source.tools(), 'list_notes');
      for (let i = 0; i < 2; i += 1) h.expect(await run(h, list, {})).toMatchObject({ isError: true, reason: 'server_error' });
      h.expect(fetch.initializes).toBe(1);
    });

    h.it('a 503 on one call fails that call; the session is kept', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let calls = 0;
      const fetch = intercept(endpoint.fetch, (exchange) => {
        if (exchange.method !== 'tools/call') return undefined;
        calls += 1;
        return calls === 1 ? new Response('busy', { status: 503 }) : undefined;
      });
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch } });
      const list = pick(await source.tools(), 'list_notes');
      h.expect(await run(h, list, {})).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(await run(h, list, {})).toMatchObject({ isError: false });
      h.expect(fetch.initializes).toBe(1);
    });
  });

  h.describe('every wire exchange is bounded', () => {
    h.it('a server that never answers notifications/initialized fails the connect at connectMs', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, (exchange) =>
        exchange.method === 'notifications/initialized' ? never(exchange.request.signal) : undefined,
      );
      await using source = mcp({
        transport: 'streamable-http',
        url: URL_,
        http: { fetch },
        requireBounds: true,
        maxTools: 10,
        maxPages: 2,
        maxSchemaBytes: 10_000,
        timeouts: { connectMs: 300, listMs: 300, callMs: 300, discoveryMs: 500 },
      });
      const started = Date.now();
      await expectConfigError(h, () => source.tools(), 'connect.timeout');
      h.expect(Date.now() - started).toBeLessThan(2_000);
      h.expect(fetch.seen.some((e) => e.method === 'tools/list')).toBe(false);
    });
  });

  h.describe('header hooks that misbehave are refused typed', () => {
    const endpointWith = (headers: unknown) => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch: endpoint.fetch, headers: headers as () => Record<string, string> } });
      return { endpoint, source };
    };

    for (const [label, value] of [['undefined', undefined], ['null', null], ['a number', 7]] as const) {
      h.it(`a header value that is ${label} is refused naming the header, and nothing is sent`, async () => {
        const { endpoint, source } = endpointWith(() => ({ 'x-tenant': value }));
        const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
        h.expect(message).toContain('"x-tenant"');
        h.expect(message).toContain('not a string');
        h.expect(endpoint.requests).toHaveLength(0);
        await source.close();
      });
    }

    h.it('a Headers object is accepted and sent', async () => {
      const { endpoint, source } = endpointWith(() => new Headers({ authorization: 'Bearer from-headers' }));
      await source.tools();
      h.expect(endpoint.requests.length).toBeGreaterThan(0);
      h.expect(endpoint.requests.every((r) => r.authorization === 'Bearer from-headers')).toBe(true);
      await source.close();
    });

    h.it('a record whose getter throws is the hook failing, typed, with no host message', async () => {
      const record = Object.defineProperty({}, 'authorization', {
        enumerable: true,
        get() {
          throw new Error('vault said: token sk-do-not-print');
        },
      });
      const { endpoint, source } = endpointWith(() => record);
      const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
      h.expect(message).not.toContain('sk-do-not-print');
      h.expect(endpoint.requests).toHaveLength(0);
      await source.close();
    });

    h.it('a hook that fails mid-session fails that call and keeps the session', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, () => undefined);
      let broken = false;
      const headers = () => {
        if (broken) throw new Error('token store offline');
        return { authorization: 'Bearer fine' };
      };
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers } });
      const list = pick(await source.tools(), 'list_notes');
      broken = true;
      const failed = await run(h, list, {});
      h.expect(failed).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(failed.output).toContain('http.headers hook failed (Error)');
      h.expect(failed.output).not.toContain('token store offline');
      broken = false;
      h.expect(await run(h, list, {})).toMatchObject({ isError: false });
      h.expect(fetch.initializes).toBe(1);
    });
  });
}
