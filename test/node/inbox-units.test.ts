/**
 * Unit tests of the approvals inbox (src/core/engine/inbox.ts): `engine.pending()` with no run
 * id. The store's listing is checked (a store with no `runs`, a listing that is not a list or
 * holds a non-string, duplicates, at most maxRuns); every open approval comes back by run in
 * the store's order, then in the order asked; ended and empty runs give none; passed
 * deadlines are closed by their timeout first and reported; at most maxApprovals come back;
 * runs are loaded eight at a time; and a store that does not answer within storeMs is
 * `journal.unavailable`, on a fake clock from both sides.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { entry } from '../../src/core/engine/entries.js';
import { inbox, INBOX_LOADS_AT_ONCE, listRuns } from '../../src/core/engine/inbox.js';
import type { RulvarError } from '../../src/core/errors.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { memoryJournal } from '../../src/core/journal/memory.js';
import type { JournalStore } from '../../src/core/journal/store.js';
import { caught } from '../core/helpers.js';
import { approvalEntry } from './approval-entry.js';

const start = entry({ type: 'run:start', workflow: 'w', args: null, at: '2026-12-04T00:00:00.000Z' });
const noClose = () => undefined;
const refusal = async (work: () => unknown) => {
  const error = (await caught(work)) as RulvarError;
  return [error.code, error.message];
};

/** A memory store holding `runs` (run id to entries), listed in the order given. */
async function storeOf(runs: Record<string, JournalEntry[]>): Promise<JournalStore> {
  const store = memoryJournal();
  for (const [runId, entries] of Object.entries(runs)) await store.append(runId, entries, 0);
  return { ...store, load: (runId) => store.load(runId), append: (...args) => store.append(...args), runs: async () => Object.keys(runs) };
}

afterEach(() => {
  vi.useRealTimers();
});

/** What `work` had settled to (its refusal as [code, message]) one millisecond before `ms` on the fake clock, and at `ms`. */
async function around(work: Promise<unknown>, ms: number): Promise<[unknown, unknown]> {
  let result: unknown = 'pending';
  void work.then((value) => (result = value), (error: RulvarError) => (result = [error.code, error.message]));
  await vi.advanceTimersByTimeAsync(ms - 1);
  const before = result;
  await vi.advanceTimersByTimeAsync(1);
  return [before, result];
}

describe('listRuns', () => {
  it('a store without runs() is journal.cannot_list, naming what needed the listing', async () => {
    expect(await refusal(() => listRuns({ load: async () => [], append: async () => undefined }, 'the inbox'))).toEqual([
      'journal.cannot_list',
      'the inbox needs a journal store that lists its runs (memory, file, Postgres); this store has no runs()',
    ]);
  });

  it('a listing that is not a list, or holds a run id that is not a string, is journal.corrupt saying where', async () => {
    const listing = (runs: unknown): JournalStore => ({ load: async () => [], append: async () => undefined, runs: async () => runs as string[] });
    expect(await refusal(() => listRuns(listing({ 0: 'a' }), 'x'))).toEqual(['journal.corrupt', 'the journal store listed its runs as something that is not a list']);
    expect(await refusal(() => listRuns(listing(['a', 'b', 7]), 'x'))).toEqual(['journal.corrupt', 'the journal store listed a run id that is not a string (at 2)']);
  });

  it('keeps the store\'s order, drops repeats, stops at max distinct ids', async () => {
    const store: JournalStore = { load: async () => [], append: async () => undefined, runs: async () => ['c', 'a', 'c', 'b', 'a', 'd', 7 as never] };
    expect(await refusal(() => listRuns(store, 'x'))).toEqual(['journal.corrupt', 'the journal store listed a run id that is not a string (at 6)']);
    const bounded: JournalStore = { ...store, runs: async () => ['c', 'a', 'c', 'b', 'a', 'd'] };
    expect(await listRuns(bounded, 'x')).toEqual(['c', 'a', 'b', 'd']);
    expect(await listRuns(bounded, 'x', 3)).toEqual(['c', 'a', 'b']);
    // The non-string past the bound is never read.
    expect(await listRuns(store, 'x', 4)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('a listing that does not answer within ms is journal.unavailable, not before', async () => {
    vi.useFakeTimers();
    const store: JournalStore = { load: async () => [], append: async () => undefined, runs: () => new Promise<string[]>(() => undefined) };
    expect(await around(listRuns(store, 'x', 10, 1_000), 1_000)).toEqual(['pending', ['journal.unavailable', 'the journal store did not answer within 1000 ms (listing its runs)']]);
  });
});

describe('inbox', () => {
  it('every open approval, by run in the store\'s order, then as asked; resolved, ended and empty runs give none', async () => {
    const store = await storeOf({
      zeta: [start, approvalEntry('z1'), approvalEntry('z2')],
      alpha: [start, approvalEntry('a1'), approvalEntry('a2'), entry({ type: 'resolution', key: 'a1', decision: 'allow', by: 'external', at: '2026-12-04T00:00:00.000Z' })],
      ended: [start, approvalEntry('e1'), entry({ type: 'run:end', value: null })],
      leaseOnly: [entry({ type: 'lease', holder: 'h', until: 0 })],
    });
    const found = await inbox({ ...store, runs: async () => ['zeta', 'alpha', 'ended', 'leaseOnly', 'never-written'] }, noClose);
    expect(found.map((p) => `${p.runId}/${p.key}`)).toEqual(['zeta/z1', 'zeta/z2', 'alpha/a2']);
    expect(found[0]).toEqual({ key: 'z1', runId: 'zeta', toolName: 'lookup', input: {}, audit: { verdict: 'ask', layer: 'default', advisory: [] } });
  });

  it('a passed deadline is closed by its timeout first and reported; one still ahead is left open', async () => {
    const past = new Date(Date.now() - 1_000).toISOString();
    const ahead = new Date(Date.now() + 60_000).toISOString();
    const store = await storeOf({ r: [start, approvalEntry('gone', past, 'allow'), approvalEntry('open', ahead)], s: [start, approvalEntry('later', ahead)] });
    const closed: unknown[] = [];
    const found = await inbox(store, (runId, resolution) => closed.push({ runId, ...resolution }));
    expect(found.map((p) => p.key)).toEqual(['open', 'later']);
    expect(closed).toEqual([{ runId: 'r', key: 'gone', decision: 'allow', by: 'timeout' }]);
    expect((await store.load('r')).at(-1)).toMatchObject({ type: 'resolution', key: 'gone', by: 'timeout' });
    // Closed once: the next look finds nothing more to close.
    closed.length = 0;
    await inbox(store, (runId, resolution) => closed.push({ runId, ...resolution }));
    expect(closed).toEqual([]);
  });

  it('returns at most maxApprovals, the first in that order, and looks at no more runs than it needs', async () => {
    const runs: Record<string, JournalEntry[]> = {};
    for (let i = 0; i < 20; i += 1) runs[`r${String(i).padStart(2, '0')}`] = [start, approvalEntry(`k${i}a`), approvalEntry(`k${i}b`)];
    const store = await storeOf(runs);
    const loaded: string[] = [];
    const watched: JournalStore = { ...store, load: (runId) => (loaded.push(runId), store.load(runId)) };
    const found = await inbox(watched, noClose, { maxApprovals: 5 });
    expect(found.map((p) => p.key)).toEqual(['k0a', 'k0b', 'k1a', 'k1b', 'k2a']);
    // One window of eight was enough for five approvals.
    expect(loaded).toHaveLength(INBOX_LOADS_AT_ONCE);
    expect((await inbox(watched, noClose, { maxRuns: 2 })).map((p) => p.key)).toEqual(['k0a', 'k0b', 'k1a', 'k1b']);
  });

  it('loads eight runs at a time, never more at once, and every run once', async () => {
    const runs: Record<string, JournalEntry[]> = {};
    for (let i = 0; i < 20; i += 1) runs[`r${i}`] = [start, approvalEntry(`k${i}`)];
    const store = await storeOf(runs);
    let inFlight = 0;
    let most = 0;
    const loaded: string[] = [];
    const slow: JournalStore = {
      ...store,
      load: async (runId) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        loaded.push(runId);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return store.load(runId);
      },
    };
    expect(await inbox(slow, noClose)).toHaveLength(20);
    expect(most).toBe(INBOX_LOADS_AT_ONCE);
    expect([...loaded].sort()).toEqual(Object.keys(runs).sort());
  });

  it('a store without runs() is refused naming the inbox', async () => {
    expect(await refusal(() => inbox({ load: async () => [], append: async () => undefined }, noClose))).toEqual([
      'journal.cannot_list',
      'engine.pending() with no run id needs a journal store that lists its runs (memory, file, Postgres); this store has no runs()',
    ]);
  });

  it('a deadline at this very millisecond has passed: closed first; one a millisecond ahead is listed', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-12-04T12:00:00.000Z') });
    const now = Date.now();
    const store = await storeOf({ r: [start, approvalEntry('now', new Date(now).toISOString())], s: [start, approvalEntry('ahead', new Date(now + 1).toISOString())] });
    const closed: string[] = [];
    expect((await inbox(store, (_runId, resolution) => closed.push(resolution.key))).map((p) => p.key)).toEqual(['ahead']);
    expect(closed).toEqual(['now']);
  });

  it('closing passed deadlines that does not finish within storeMs is journal.unavailable naming the run', async () => {
    vi.useFakeTimers();
    const store = await storeOf({ late: [start, approvalEntry('k', new Date(Date.now() - 1_000).toISOString())] });
    const stuck: JournalStore = { ...store, load: (runId) => store.load(runId), append: () => new Promise<void>(() => undefined) };
    expect(await around(inbox(stuck, noClose, { storeMs: 500 }), 500)).toEqual(['pending', ['journal.unavailable', 'the journal store did not answer within 500 ms (closing the passed deadlines of run "late")']]);
  });

  it('a load that does not answer within storeMs is journal.unavailable naming the run', async () => {
    vi.useFakeTimers();
    const store = await storeOf({ stuck: [start] });
    const hung: JournalStore = { ...store, load: () => new Promise<JournalEntry[]>(() => undefined) };
    expect(await around(inbox(hung, noClose, { storeMs: 500 }), 500)).toEqual(['pending', ['journal.unavailable', 'the journal store did not answer within 500 ms (loading run "stuck")']]);
  });
});
