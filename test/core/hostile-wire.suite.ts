/**
 * How failures on the wire are read (issue 8, findings 4, 6, 7 and 13b): a server's JSON-RPC
 * error is the server talking, whatever its code, and never drops the session; one failed
 * HTTP request fails one call; every step of the handshake is bounded; a header hook that
 * misbehaves is refused typed, naming the header, and nothing is sent. Every case runs on
 * each wire the runtime offers (in process, and over a loopback socket in Node and workerd).
 */
import { serverErrorServer } from '../fixtures/hostile-wire.js';
import { drop, hang, rpcError, rpcResult, sseAnswer, status } from '../fixtures/wire-rules.js';
import { flavours } from './flavours.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, pick, run } from './helpers.js';
import { calls, onWire, wiresOf, type Wire } from './wire.js';
import { opening } from './era.js';

/** A peer that hangs up mid-request, as Node's fetch (undici) and workerd's report it through the library. */
const DROPPED = /the request failed: (fetch failed|Network connection lost)/;

export function hostileWireSuite(h: SuiteHarness): void {
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

  for (const wire of wiresOf(h)) {
    h.describe(onWire('a session is lost on evidence only', wire), () => sessionCases(h, wire));
    h.describe(onWire('every wire exchange is bounded', wire), () => boundedCases(h, wire));
    h.describe(onWire('header hooks that misbehave are refused typed', wire), () => hookCases(h, wire));
  }
}

function sessionCases(h: SuiteHarness, wire: Wire): void {
  const { mcp } = h.lib;

  h.it('one dropped POST fails that call alone; 199 concurrent calls complete on the same session', async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', nth: [57], reply: drop() }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const add = pick(await source.tools(), 'add_note');
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(h, add, { title: `n${i}`, body: '' })));
    const failed = results.filter((r) => r.isError);
    h.expect(failed).toHaveLength(1);
    h.expect(failed[0]).toMatchObject({ reason: 'unavailable' });
    // In process the fixture's own error; on a socket, what this runtime's fetch says when the peer hangs up.
    h.expect(failed[0]?.output).toMatch(wire.socket ? DROPPED : /connection reset/);
    h.expect(await run(h, add, { title: 'after', body: '' })).toMatchObject({ isError: false });
    h.expect(calls(await endpoint.log(), opening(h))).toHaveLength(1);
  });

  h.it('a JSON-RPC error answered with the id as a string is still the server talking', async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', reply: rpcError(-32000, 'string id', true) }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const list = pick(await source.tools(), 'list_notes');
    for (let i = 0; i < 2; i += 1) h.expect(await run(h, list, {})).toMatchObject({ isError: true, reason: 'server_error' });
    h.expect(calls(await endpoint.log(), opening(h))).toHaveLength(1);
  });

  // [how the call is answered, the reply, what the error names]
  const malformed = [
    ['inside an SSE stream with a result that is an array', sseAnswer({ result: [] }), 'the server answered with a result that is an array, not an object'],
    ['inside an SSE stream with an error that is a string', sseAnswer({ error: 'boom' }), 'the server answered with an error that is a string, not an object'],
    ['inside an SSE stream with jsonrpc "1.0"', sseAnswer({ jsonrpc: '1.0', result: { content: [] } }), 'the server answered with an answer whose jsonrpc is not "2.0"'],
    ['with a JSON body whose result is an array', rpcResult([]), 'not valid MCP'],
  ] as const;
  for (const [how, reply, names] of malformed) {
    h.it(`a call answered ${how} is a server_error at once; the session is kept`, async () => {
      await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', nth: [1], reply }] });
      await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http, timeouts: { callMs: 30_000 } });
      const list = pick(await source.tools(), 'list_notes');
      const started = Date.now();
      const failed = await run(h, list, {});
      h.expect(Date.now() - started).toBeLessThan(5_000);
      h.expect(failed).toMatchObject({ isError: true, reason: 'server_error' });
      h.expect(failed.output).toContain(names);
      h.expect(await run(h, list, {})).toMatchObject({ isError: false });
      h.expect(calls(await endpoint.log(), opening(h))).toHaveLength(1);
    });
  }

  h.it('a 503 on one call fails that call; the session is kept', async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', nth: [1], reply: status(503, 'busy') }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const list = pick(await source.tools(), 'list_notes');
    h.expect(await run(h, list, {})).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(await run(h, list, {})).toMatchObject({ isError: false });
    h.expect(calls(await endpoint.log(), opening(h))).toHaveLength(1);
  });
}

function boundedCases(h: SuiteHarness, wire: Wire): void {
  // The handshake step a server may leave unanswered: the initialized POST, or the discover probe.
  const step = h.modern === undefined ? 'notifications/initialized' : 'server/discover';
  h.it(`a server that never answers ${step} fails the connect at connectMs`, async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: step, reply: hang() }] });
    await using source = h.lib.mcp({
      transport: 'streamable-http',
      url: endpoint.url,
      http: endpoint.http,
      requireBounds: true,
      maxTools: 10,
      maxPages: 2,
      maxSchemaBytes: 10_000,
      timeouts: { connectMs: 300, listMs: 300, callMs: 300, discoveryMs: 500 },
    });
    const started = Date.now();
    await expectConfigError(h, () => source.tools(), 'connect.timeout');
    h.expect(Date.now() - started).toBeLessThan(2_000);
    h.expect(calls(await endpoint.log(), 'tools/list')).toHaveLength(0);
  });
}

function hookCases(h: SuiteHarness, wire: Wire): void {
  const { mcp } = h.lib;
  /** A source with this header hook; the endpoint goes when the source does. */
  const sourceWith = async (headers: unknown) => {
    const endpoint = await wire.serve('workbench');
    const source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: headers as () => Record<string, string> } });
    return {
      endpoint,
      source,
      async [Symbol.asyncDispose]() {
        await source.close();
        await endpoint.close();
      },
    };
  };

  for (const [label, value] of [['undefined', undefined], ['null', null], ['a number', 7]] as const) {
    h.it(`a header value that is ${label} is refused naming the header, and nothing is sent`, async () => {
      await using served = await sourceWith(() => ({ 'x-tenant': value }));
      const message = await expectConfigError(h, () => served.source.tools(), 'http.header_hook');
      h.expect(message).toContain('"x-tenant"');
      h.expect(message).toContain('not a string');
      h.expect((await served.endpoint.log()).exchanges).toHaveLength(0);
    });
  }

  h.it('a Headers object is accepted and sent', async () => {
    await using served = await sourceWith(() => new Headers({ authorization: 'Bearer from-headers' }));
    await served.source.tools();
    const { exchanges } = await served.endpoint.log();
    h.expect(exchanges.length).toBeGreaterThan(0);
    h.expect(exchanges.every((e) => e.authorization === 'Bearer from-headers')).toBe(true);
  });

  h.it('a record whose getter throws is the hook failing, typed, with no host message', async () => {
    const record = Object.defineProperty({}, 'authorization', {
      enumerable: true,
      get() {
        throw new Error('vault said: token sk-do-not-print');
      },
    });
    await using served = await sourceWith(() => record);
    const message = await expectConfigError(h, () => served.source.tools(), 'http.header_hook');
    h.expect(message).not.toContain('sk-do-not-print');
    h.expect((await served.endpoint.log()).exchanges).toHaveLength(0);
  });

  h.it('a hook that fails mid-session fails that call and keeps the session', async () => {
    let broken = false;
    await using served = await sourceWith(() => {
      if (broken) throw new Error('token store offline');
      return { authorization: 'Bearer fine' };
    });
    const list = pick(await served.source.tools(), 'list_notes');
    broken = true;
    const failed = await run(h, list, {});
    h.expect(failed).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(failed.output).toContain('http.headers hook failed (Error)');
    h.expect(failed.output).not.toContain('token store offline');
    broken = false;
    h.expect(await run(h, list, {})).toMatchObject({ isError: false });
    h.expect(calls(await served.endpoint.log(), opening(h))).toHaveLength(1);
  });
}
