/** Lazy connect, close() in every state, calls on a closed source, and recovery from a dead connection. */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { rawServer } from '../fixtures/raw-server.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectSourceError, pick, run } from './helpers.js';

const listOne = { tools: [{ name: 'one', inputSchema: { type: 'object' } }] };

type Connectable = { connect: ReturnType<typeof createWorkbenchServer>['connect'] };

/** Wraps a server so the test can count connects and make one fail or stall. */
function instrumented(behaviour: 'ok' | 'fail' = 'ok') {
  const server = createWorkbenchServer();
  const counts = { connects: 0 };
  const wrapped: Connectable = {
    connect: async (transport) => {
      counts.connects += 1;
      if (behaviour === 'fail') throw new Error('the server refused the connection');
      return server.connect(transport);
    },
  };
  return { server, wrapped, counts };
}

export function lifecycleSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  h.describe('lifecycle', () => {
    h.it('connects lazily, on the first tools()', async () => {
      const { wrapped, counts } = instrumented();
      const source = mcp({ transport: 'inprocess', server: wrapped });
      h.expect(counts.connects).toBe(0);
      await source.tools();
      h.expect(counts.connects).toBe(1);
      await source.close();
    });

    h.it('close() resolves when never connected, and twice', async () => {
      const { wrapped, server, counts } = instrumented();
      const source = mcp({ transport: 'inprocess', server: wrapped });
      await h.expect(source.close()).resolves.toBeUndefined();
      await h.expect(source.close()).resolves.toBeUndefined();
      // Closing had nothing to release and opened nothing to do so.
      h.expect(counts.connects).toBe(0);
      h.expect(server.isConnected()).toBe(false);
      // The source is still usable: the next tools() connects as usual.
      h.expect((await source.tools()).length).toBeGreaterThan(0);
      h.expect(counts.connects).toBe(1);
      await source.close();
      h.expect(server.isConnected()).toBe(false);
    });

    h.it('close() resolves after a failed connect; tools() failed typed', async () => {
      const { wrapped } = instrumented('fail');
      const source = mcp({ transport: 'inprocess', server: wrapped });
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('refused the connection');
      await source.close();
    });

    h.it('close() while connecting releases the new session and fails that tools() as source.closed', async () => {
      const { wrapped, server } = instrumented();
      const source = mcp({ transport: 'inprocess', server: wrapped });
      const pending = source.tools();
      await source.close();
      await expectSourceError(h, () => pending, 'source.closed');
      // The server was released: it can be connected again by a fresh session.
      h.expect(server.isConnected()).toBe(false);
      h.expect((await source.tools()).length).toBeGreaterThan(0);
      await source.close();
    });

    h.it('close() resets the source: the next tools() connects afresh', async () => {
      const { wrapped, counts } = instrumented();
      const source = mcp({ transport: 'inprocess', server: wrapped });
      await source.tools();
      await source.close();
      await source.tools();
      h.expect(counts.connects).toBe(2);
      await source.close();
    });

    h.it('a call on a closed source is an error result (unavailable), not a throw', async () => {
      const source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      const tools = await source.tools();
      await source.close();
      const result = await run(h, pick(tools, 'list_notes'), {});
      h.expect(result).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(String(result.output)).toContain('closed');
    });

    h.it('close() during a call fails that call as an error result', async () => {
      const source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      const tools = await source.tools();
      const call = run(h, pick(tools, 'sleep'), { ms: 2_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await source.close();
      h.expect(await call).toMatchObject({ isError: true, reason: 'unavailable' });
    });

    h.it('Symbol.asyncDispose closes the source', async () => {
      const { server } = instrumented();
      {
        await using source = mcp({ transport: 'inprocess', server });
        await source.tools();
        h.expect(server.isConnected()).toBe(true);
      }
      h.expect(server.isConnected()).toBe(false);
    });

    h.it('a dead connection is not stuck: a call caught on it is unavailable, the next tools() reconnects', async () => {
      const { server, wrapped, counts } = instrumented();
      await using source = mcp({ transport: 'inprocess', server: wrapped });
      const tools = await source.tools();
      const caughtCall = run(h, pick(tools, 'sleep'), { ms: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const died = Date.now();
      await server.close(); // the server side goes away mid-call
      h.expect(await caughtCall).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(Date.now() - died).toBeLessThan(1_500);
      h.expect((await source.tools()).length).toBe(tools.length);
      h.expect(counts.connects).toBe(2);
    });

    h.it('a call after the connection died connects afresh and succeeds', async () => {
      const { server, wrapped, counts } = instrumented();
      await using source = mcp({ transport: 'inprocess', server: wrapped });
      const tools = await source.tools();
      await server.close();
      h.expect(await run(h, pick(tools, 'list_notes'), {})).toMatchObject({ isError: false });
      h.expect(counts.connects).toBe(2);
    });

    h.it('a malformed call result is server_error and keeps the session', async () => {
      const server = rawServer((method) => (method === 'tools/list' ? listOne : { content: 'not an array' }));
      await using source = mcp({ transport: 'inprocess', server });
      const one = pick(await source.tools(), 'one');
      for (let i = 0; i < 2; i += 1) h.expect(await run(h, one, {})).toMatchObject({ isError: true, reason: 'server_error' });
      h.expect(server.connects).toBe(1);
    });

    h.it('a malformed tools/list is source.protocol, not a lost connection', async () => {
      const server = rawServer(() => ({ tools: 'none' }));
      await using source = mcp({ transport: 'inprocess', server });
      const message = await expectSourceError(h, () => source.tools(), 'source.protocol');
      h.expect(message).toContain('not valid MCP');
      await expectSourceError(h, () => source.tools(), 'source.protocol');
      h.expect(server.connects).toBe(1);
    });

    h.it('an unsupported protocol version in the handshake is source.protocol', async () => {
      const server = rawServer(() => listOne, { protocolVersion: '1999-01-01' });
      await using source = mcp({ transport: 'inprocess', server });
      const message = await expectSourceError(h, () => source.tools(), 'source.protocol');
      h.expect(message).toContain('1999-01-01');
    });

    h.it('tools() racing close() on a warm source fails as source.closed, never returns dead tools', async () => {
      await using source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      await source.tools();
      const pending = source.tools();
      await source.close();
      await expectSourceError(h, () => pending, 'source.closed');
    });

    h.it('tools() right after a close() that was not awaited reconnects cleanly', async () => {
      const source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      await source.tools();
      void source.close();
      h.expect((await source.tools()).length).toBe(6);
      await source.close();
    });

    h.it('a second close() waits for the first to finish', async () => {
      const { server } = instrumented();
      const source = mcp({ transport: 'inprocess', server });
      await source.tools();
      const first = source.close();
      await source.close();
      h.expect(server.isConnected()).toBe(false);
      await first;
    });

    h.it('one long-lived signal across many calls: no stale cancellations when it aborts later', async () => {
      const server = rawServer((method) => (method === 'tools/list' ? listOne : { content: [{ type: 'text', text: 'ok' }] }));
      await using source = mcp({ transport: 'inprocess', server });
      const one = pick(await source.tools(), 'one');
      const run_ = new AbortController();
      for (let i = 0; i < 30; i += 1) h.expect((await run(h, one, {}, run_.signal)).isError).toBe(false);
      run_.abort();
      await new Promise((resolve) => setTimeout(resolve, 20));
      h.expect(server.notifications.filter((m) => m === 'notifications/cancelled')).toEqual([]);
    });

    h.it("a call's signal bounds its wait for a reconnect", async () => {
      const server = createWorkbenchServer();
      let connects = 0;
      const hangsSecondTime = {
        connect: (transport: Parameters<typeof server.connect>[0]) =>
          (connects += 1) === 1 ? server.connect(transport) : new Promise<void>(() => undefined),
      };
      const source = mcp({ transport: 'inprocess', server: hangsSecondTime, timeouts: { connectMs: 5_000 } });
      const tools = await source.tools();
      await server.close();
      const started = Date.now();
      h.expect(await run(h, pick(tools, 'list_notes'), {}, AbortSignal.timeout(150))).toMatchObject({ isError: true, reason: 'timeout' });
      h.expect(Date.now() - started).toBeLessThan(2_000);
      // close() does not wait on a server whose connect() never returns.
      const closing = Date.now();
      await source.close();
      h.expect(Date.now() - closing).toBeLessThan(1_000);
    });

    h.it('tools({ signal }) stops waiting when the signal aborts (source.cancelled)', async () => {
      const server = rawServer(() => new Promise(() => undefined));
      await using source = mcp({ transport: 'inprocess', server });
      const controller = new AbortController();
      const pending = source.tools({ signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expectSourceError(h, () => pending, 'source.cancelled');
    });

    h.it('a long in-process sweep still lets timers run: tools({ signal }) can cancel it', async () => {
      let pages = 0;
      const fast = rawServer(() => ((pages += 1) < 200_000 ? { tools: [], nextCursor: `p${pages}` } : { tools: [] }));
      await using source = mcp({ transport: 'inprocess', server: fast });
      const started = Date.now();
      await expectSourceError(h, () => source.tools({ signal: AbortSignal.timeout(100) }), 'source.cancelled');
      h.expect(Date.now() - started).toBeLessThan(2_000);
    });

    h.it('errors are typed across bundles by name', async () => {
      const { wrapped } = instrumented('fail');
      await using source = mcp({ transport: 'inprocess', server: wrapped });
      const error = await caught(() => source.tools());
      h.expect(h.lib.RulvarError.is(error)).toBe(true);
      h.expect(h.lib.RulvarError.is({ name: 'SourceError', code: 'source.unavailable', message: '' })).toBe(true);
      h.expect(h.lib.ConfigError.is(error)).toBe(false);
    });
  });
}
