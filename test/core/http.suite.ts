/**
 * streamable-http against the SDK's web-standard server, once per wire the runtime offers:
 * called in process through `http.fetch`, and (Node, workerd) served on a real loopback
 * socket and reached with the library's default fetch.
 */
import { status } from '../fixtures/wire-rules.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, expectSourceError, pick, run } from './helpers.js';
import { httpCapCases } from './http-cap.suite.js';
import { calls, expectCarried, logged, onWire, wiresOf, type Wire } from './wire.js';

export function httpSuite(h: SuiteHarness): void {
  for (const wire of wiresOf(h)) {
    h.describe(onWire('streamable-http', wire), () => {
      httpCases(h, wire);
      httpCapCases(h, wire);
    });
  }
}

function httpCases(h: SuiteHarness, wire: Wire): void {
  const { mcp } = h.lib;

  h.it(wire.socket ? 'every request reached the server through the loopback listener, from a TCP peer' : 'every request reached the handler in process, with no socket', async () => {
    await using endpoint = await wire.serve('workbench');
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    await run(h, pick(await source.tools(), 'list_notes'), {});
    const log = await endpoint.log();
    h.expect(calls(log, 'tools/call')).toHaveLength(1);
    expectCarried(h, wire, log);
  });

  h.it('imports and calls tools over a web-standard server', async () => {
    await using endpoint = await wire.serve('workbench');
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http, prefix: 'wb' });
    const tools = await source.tools();
    h.expect(tools.map((t) => t.name)).toContain('wb_add_note');
    const result = await run(h, pick(tools, 'wb_add_note'), { title: 'x', body: 'y' });
    h.expect(result).toMatchObject({ isError: false, output: { title: 'x', count: 1 } });
  });

  h.it('the header hook runs before every wire request, and the server sees each value', async () => {
    await using endpoint = await wire.serve('workbench');
    let hookCalls = 0;
    const headers = async () => {
      hookCalls += 1;
      await Promise.resolve();
      return { authorization: `Bearer token-${hookCalls}` };
    };
    const source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers } });
    const tools = await source.tools();
    await run(h, pick(tools, 'list_notes'), {});
    await logged(endpoint, (log) => log.exchanges.some((e) => e.verb === 'GET'), 'the notification stream');
    await source.close();
    const { exchanges } = await endpoint.log();
    // One hook call per wire request, and each request carried a token no other one did.
    h.expect(exchanges.length).toBe(hookCalls);
    const tokens = exchanges.map((e) => e.authorization);
    h.expect(new Set(tokens).size).toBe(tokens.length);
    h.expect(tokens.every((t) => t?.startsWith('Bearer token-'))).toBe(true);
    h.expect([...new Set(exchanges.map((e) => e.verb))].sort()).toEqual(['DELETE', 'GET', 'POST']);
  });

  h.it('a token rotated in the header hook is carried by the next request, with no reconnect', async () => {
    await using endpoint = await wire.serve('workbench');
    let token = 'first';
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: () => ({ authorization: `Bearer ${token}` }) } });
    const list = pick(await source.tools(), 'list_notes');
    h.expect(await run(h, list, {})).toMatchObject({ isError: false });
    token = 'second';
    h.expect(await run(h, list, {})).toMatchObject({ isError: false });
    const log = await endpoint.log();
    h.expect(calls(log, 'tools/call').map((e) => e.authorization)).toEqual(['Bearer first', 'Bearer second']);
    h.expect(calls(log, 'initialize').map((e) => e.authorization)).toEqual(['Bearer first']);
  });

  h.it('a 401 on a call in a live session fails that call (unavailable), keeps the session and is not retried', async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', nth: [1], reply: status(401, 'token expired') }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: { authorization: 'Bearer old' } } });
    const tools = await source.tools();
    const rejected = await run(h, pick(tools, 'list_notes'), {});
    h.expect(rejected).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(rejected.output).toContain('token expired');
    // Exactly one POST for that call: the library did not retry it.
    h.expect(calls(await endpoint.log(), 'tools/call')).toHaveLength(1);
    // The session was kept: the next call goes out on it, with no new initialize.
    h.expect(await run(h, pick(tools, 'add_note'), { title: 'after', body: '' })).toMatchObject({ isError: false, output: { title: 'after', count: 1 } });
    const log = await endpoint.log();
    h.expect(calls(log, 'tools/call')).toHaveLength(2);
    h.expect(calls(log, 'initialize')).toHaveLength(1);
    h.expect(log.sessions).toBe(1);
  });

  h.it('a static header record is sent on every request', async () => {
    await using endpoint = await wire.serve('workbench');
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: { authorization: 'Bearer fixed' } } });
    await source.tools();
    const { exchanges } = await endpoint.log();
    h.expect(exchanges.length).toBeGreaterThan(1);
    h.expect(exchanges.every((e) => e.authorization === 'Bearer fixed')).toBe(true);
  });

  h.it('a rejected request is not retried by the library (no invented 401 retry)', async () => {
    await using endpoint = await wire.serve('workbench', { rules: [{ on: '*', reply: status(401, 'unauthorized') }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
    h.expect(message).toContain(source.id);
    h.expect((await endpoint.log()).exchanges).toHaveLength(1);
  });

  h.it('a failing header hook fails the request typed, without leaking header values', async () => {
    await using endpoint = await wire.serve('workbench');
    const headers = () => ({ authorization: 'Bearer s3cret\nvalue' });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers } });
    const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
    h.expect(message).toContain('authorization');
    h.expect(message).not.toContain('s3cret');
    h.expect((await endpoint.log()).exchanges).toHaveLength(0);
  });

  h.it('a forgotten session answered with 400 (as SDK servers do) also reconnects', async () => {
    await using endpoint = await wire.serve('workbench', { forgottenStatus: 400 });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const tools = await source.tools();
    await endpoint.forget();
    h.expect(await run(h, pick(tools, 'list_notes'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(await run(h, pick(tools, 'add_note'), { title: 'x', body: '' })).toMatchObject({ isError: false });
  });

  h.it('a header hook returning something that is not a record fails typed', async () => {
    await using endpoint = await wire.serve('workbench');
    const headers = (() => undefined) as unknown as () => Record<string, string>;
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers } });
    const message = await expectConfigError(h, () => source.tools(), 'http.header_hook');
    h.expect(message).toContain('http.headers hook must return');
  });

  h.it('a session the server forgot fails the call as unavailable; the next call reconnects', async () => {
    await using endpoint = await wire.serve('workbench');
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const tools = await source.tools();
    await endpoint.forget();
    const lost = await run(h, pick(tools, 'list_notes'), {});
    h.expect(lost).toMatchObject({ isError: true, reason: 'unavailable' });
    const again = await run(h, pick(tools, 'add_note'), { title: 'back', body: '' });
    h.expect(again).toMatchObject({ isError: false, output: { title: 'back', count: 1 } });
    h.expect((await endpoint.log()).sessions).toBe(1);
  });
}
