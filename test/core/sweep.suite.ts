/**
 * The tools/list sweep: pagination to exhaustion, one shared sweep for concurrent cold
 * callers, the per-session cache, list_changed before, during and after a sweep, and drift.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpToolSource } from '../../src/core/index.js';
import { createPagedServer } from '../fixtures/paged-server.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, pick, run } from './helpers.js';

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

export function sweepSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;
  // On the 2026-07-28 wire the paged server sits behind a modern front (harness.ts).
  const inprocess = (server: { connect: McpServer['connect'] }, extra: object = {}) =>
    mcp({ transport: 'inprocess', server: h.modern === undefined ? server : h.modern.bridge(() => server), ...extra });

  h.describe('tools/list sweep', () => {
    h.it('walks every page, in order, one wire call per page', async () => {
      const paged = createPagedServer({ pages: [['a', 'b'], ['c'], [], ['d', 'e']] });
      await using source = inprocess(paged.server);
      h.expect(names(await source.tools())).toEqual(['a', 'b', 'c', 'd', 'e']);
      h.expect(paged.listCalls).toEqual([undefined, 'c1', 'c2', 'c3']);
    });

    h.it('an empty-string nextCursor ends the sweep like an absent one', async () => {
      const paged = createPagedServer({ pages: [['a'], ['b']], lastCursor: '' });
      await using source = inprocess(paged.server);
      h.expect(names(await source.tools())).toEqual(['a', 'b']);
      h.expect(paged.listCalls).toEqual([undefined, 'c1']);
    });

    h.it('filters apply across pages', async () => {
      const paged = createPagedServer({ pages: [['a', 'b'], ['c', 'd']] });
      await using source = inprocess(paged.server, { allow: ['b', 'c', 'd'], deny: ['d'] });
      h.expect(names(await source.tools())).toEqual(['b', 'c']);
    });

    h.it('caches the list per session: later calls do not re-list', async () => {
      const paged = createPagedServer({ pages: [['a'], ['b']] });
      await using source = inprocess(paged.server);
      await source.tools();
      await source.tools();
      await source.tools();
      h.expect(paged.listCalls.length).toBe(2);
    });

    h.it('concurrent cold calls share one connect and one sweep', async () => {
      const paged = createPagedServer({ pages: [['a'], ['b'], ['c']] });
      let connects = 0;
      const server = {
        connect: (transport: Parameters<McpServer['connect']>[0]) => {
          connects += 1;
          return paged.server.connect(transport);
        },
      };
      await using source = inprocess(server);
      const results = await Promise.all(Array.from({ length: 8 }, () => source.tools()));
      for (const tools of results) h.expect(names(tools)).toEqual(['a', 'b', 'c']);
      h.expect(connects).toBe(1);
      h.expect(paged.listCalls).toEqual([undefined, 'c1', 'c2']);
    });

    h.it('list_changed after a sweep makes the next tools() re-list', async () => {
      const paged = createPagedServer({ pages: [['a']] });
      await using source = inprocess(paged.server);
      const before = await source.tools();
      paged.setPages([['a', 'b']]);
      await paged.notifyListChanged();
      const after = await eventually(() => source.tools(), (tools) => tools.length === 2);
      h.expect(names(after)).toEqual(['a', 'b']);
      // The earlier snapshot is untouched.
      h.expect(names(before)).toEqual(['a']);
    });

    /**
     * Starts the first tools() with its first page held (the connection exists, the sweep has
     * not completed), changes the list to [a, b] and announces it, then lets the page go.
     */
    const changedDuringFirstPage = async (paged: ReturnType<typeof createPagedServer>, source: McpToolSource) => {
      const hold = paged.holdPage(0);
      const first = source.tools();
      first.catch(() => undefined); // awaited by the caller; may be a refusal
      await hold.reached;
      paged.setPages([['a', 'b']]);
      await paged.notifyListChanged();
      hold.release();
      return { first };
    };

    h.it('list_changed on a fresh connection, before the first sweep completes, keeps it from being cached', async () => {
      const paged = createPagedServer({ pages: [['a']] });
      await using source = inprocess(paged.server);
      const { first } = await changedDuringFirstPage(paged, source);
      // Its callers get the list it read; the next tools() sweeps again and sees the change.
      h.expect(names(await first)).toEqual(['a']);
      h.expect(names(await source.tools())).toEqual(['a', 'b']);
      h.expect(paged.listCalls).toEqual([undefined, undefined]);
      // That second sweep started after the notification, so it is the cache now.
      await source.tools();
      h.expect(paged.listCalls.length).toBe(2);
    });

    h.it("list_changed before the first sweep completes is drift: 'refuse' refuses that sweep", async () => {
      const paged = createPagedServer({ pages: [['a']] });
      await using source = inprocess(paged.server, { drift: 'refuse' });
      const { first } = await changedDuringFirstPage(paged, source);
      const message = await expectConfigError(h, () => first, 'source.drift_refused');
      h.expect(message).toContain(source.id);
      await expectConfigError(h, () => source.tools(), 'source.drift_refused');
      h.expect(paged.listCalls).toEqual([undefined]);
    });

    h.it('list_changed during a sweep keeps that sweep from being cached', async () => {
      const paged = createPagedServer({ pages: [['a'], ['b']] });
      await using source = inprocess(paged.server);
      const hold = paged.holdPage(1);
      const first = source.tools();
      await hold.reached;
      paged.setPages([['a'], ['b', 'c']]);
      await paged.notifyListChanged();
      // A caller arriving after the notification does not join the stale sweep.
      const hold2 = paged.holdPage(1);
      const second = source.tools();
      await hold2.reached;
      hold.release();
      hold2.release();
      h.expect(names(await first)).toEqual(['a', 'b']);
      h.expect(names(await second)).toEqual(['a', 'b', 'c']);
      const third = await source.tools();
      h.expect(names(third)).toEqual(['a', 'b', 'c']);
      h.expect(paged.listCalls.length).toBe(4);
    });

    h.it('a stale sweep finishing after a notification is not pinned as the cache', async () => {
      const paged = createPagedServer({ pages: [['a'], ['b']] });
      await using source = inprocess(paged.server);
      const hold = paged.holdPage(1);
      const first = source.tools();
      await hold.reached;
      paged.setPages([['x']]);
      await paged.notifyListChanged();
      hold.release();
      await first;
      h.expect(names(await source.tools())).toEqual(['x']);
    });

    h.it("an McpServer registering a tool after connect is re-listed (drift: 'rekey')", async () => {
      const server = new McpServer({ name: 'growing', version: '1' });
      server.registerTool('first', { description: 'first' }, () => ({ content: [] }));
      await using source = inprocess(server);
      h.expect(names(await source.tools())).toEqual(['first']);
      server.registerTool('second', { description: 'second' }, () => ({ content: [] }));
      const after = await eventually(() => source.tools(), (tools) => tools.length === 2);
      h.expect(names(after)).toEqual(['first', 'second']);
    });

    h.it("drift: 'refuse' poisons the source until close(), then imports the new list", async () => {
      const paged = createPagedServer({ pages: [['a']] });
      const source = inprocess(paged.server, { drift: 'refuse' });
      try {
        const before = await source.tools();
        paged.setPages([['a', 'b']]);
        await paged.notifyListChanged();
        await eventuallyRefused(() => source.tools());
        const message = await expectConfigError(h, () => source.tools(), 'source.drift_refused');
        h.expect(message).toContain(source.id);
        // Tools from the earlier snapshot still work until the host closes the source.
        h.expect((await run(h, pick(before, 'a'), {})).isError).toBe(false);
        await source.close();
        h.expect(names(await source.tools())).toEqual(['a', 'b']);
      } finally {
        await source.close();
      }
    });
  });
}

/** Polls `get` until `done` holds (a notification is delivered asynchronously). */
async function eventually<T>(get: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const value = await get();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the condition never held');
}

async function eventuallyRefused(get: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    try {
      await get();
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the source never refused');
}
