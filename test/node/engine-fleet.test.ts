/**
 * The fleet's engine side on the durable stores other processes share: the shared suite
 * (test/core/engine-fleet.suite.ts) on fileJournal and on postgresJournal over the run's real
 * PostgreSQL server. Then what needs Node to see: the inbox's time bound against a store that
 * never answers (from both sides), and that a stopped work() leaves no timer behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { engineFleetSuite } from '../core/engine-fleet.suite.js';
import { inbox } from '../../src/core/engine/inbox.js';
import { createEngine, defineWorkflow, fileJournal, memoryJournal, RulvarError, type JournalStore } from '../../src/node/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { scripted } from '../../src/testing/index.js';
import { freshTable, openPool, withSharedServer } from './postgres-shared.js';

withSharedServer();

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

engineFleetSuite({ describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' }, [
  {
    name: 'fileJournal',
    watch: false,
    async open() {
      const dir = await mkdtemp(path.join(tmpdir(), 'rulvar-fleet-'));
      dirs.push(dir);
      return { store: fileJournal({ dir }), another: async () => fileJournal({ dir }) };
    },
  },
  {
    name: 'postgresJournal',
    watch: true,
    async open() {
      const table = freshTable();
      return { store: postgresJournal({ pool: await openPool(), table }), another: async () => postgresJournal({ pool: await openPool(), table }) };
    },
  },
]);

describe('engine fleet: bounds only Node shows', () => {
  /** A memory store whose load of run "stuck" answers after `ms` (never, when Infinity). */
  const slowOn = async (ms: number): Promise<JournalStore> => {
    const inner = memoryJournal();
    const model = scripted([{ toolCalls: [{ name: 'pay', input: {} }] }]);
    const { tool } = await import('../../src/node/index.js');
    const pay = tool({ name: 'pay', description: 'p', parameters: { type: 'object' }, needsApproval: true, execute: () => 'x' });
    const wf = defineWorkflow({ name: 'w' }, async (ctx) => (await ctx.agent('go', { tools: [pay] })).text);
    const engine = createEngine({ adapters: [model], journal: inner, defaults: { model: 'scripted:m' } });
    await engine.run(wf, null, { runId: 'fine' }).result;
    await inner.append('stuck', await inner.load('fine'), 0);
    return {
      load: (id) => (id === 'stuck' ? (ms === Infinity ? new Promise(() => undefined) : new Promise((resolve) => setTimeout(() => resolve(inner.load(id)), ms))) : inner.load(id)),
      append: (id, entries, n) => inner.append(id, entries, n),
      runs: () => inner.runs!(),
    };
  };

  it('pending() across runs gives up on a store that does not answer within its bound (journal.unavailable), and waits for one that answers in time', async () => {
    const closed = () => undefined;
    const started = Date.now();
    const error = await inbox(await slowOn(Infinity), closed, { storeMs: 400 }).catch((e: unknown) => e);
    expect([RulvarError.is(error), (error as RulvarError).code]).toEqual([true, 'journal.unavailable']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((await inbox(await slowOn(150), closed, { storeMs: 400 })).map((p) => p.runId)).toEqual(['fine', 'stuck']);
  });

  it('a stopped work() leaves no timer, and stops at once when aborted with a store read in flight', async () => {
    // Every timer made while it works is either fired or cleared by the time it resolves.
    const open = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const journal = await slowOn(Infinity);
    const spySet = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const handle: unknown = realSet(() => (open.delete(handle), fn()), ms);
      open.add(handle);
      return handle;
    }) as typeof setTimeout);
    const spyClear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle: Parameters<typeof clearTimeout>[0]) => (open.delete(handle), realClear(handle))) as typeof clearTimeout);
    try {
      const engine = createEngine({ adapters: [scripted([])], journal });
      const controller = new AbortController();
      const done = engine.work({ workflows: [defineWorkflow({ name: 'w' }, async () => null)], signal: controller.signal, pollMs: 20 });
      await new Promise((resolve) => realSet(resolve, 200));
      expect(open.size).toBeGreaterThan(0);
      const abortedAt = Date.now();
      controller.abort();
      await done;
      expect(Date.now() - abortedAt).toBeLessThan(200);
      expect(open.size).toBe(0);
    } finally {
      spySet.mockRestore();
      spyClear.mockRestore();
    }
  });
});
