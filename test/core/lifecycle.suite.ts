/** Lazy connect, close() in every state, calls on a closed source, and recovery from a dead connection. */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectSourceError, pick, run } from './helpers.js';

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
      const source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      await source.close();
      await source.close();
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
      await server.close(); // the server side goes away mid-call
      h.expect(await caughtCall).toMatchObject({ isError: true, reason: 'unavailable' });
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
