/**
 * Unit tests of the worker loop (src/core/engine/work.ts) with a host of the test's own and a
 * memory journal, on a fake clock: its option refusals, word for word; nothing read once the
 * signal has aborted; a run resumed once it has work, at once, then at every poll; a failed run
 * not resumed again until its journal grows, while a passing failure (another engine has it)
 * is; a completed run never looked at again; a suspended run woken at its deadline's
 * millisecond; the engine's own resolutions waking a run at once; runs the engine holds, or of
 * workflows not given, left alone; a watched store swept every 30 s; and an abort that lets
 * nothing outlive it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entry } from '../../src/core/engine/entries.js';
import type { PendingApproval, RunOutcome, Workflow } from '../../src/core/engine/types.js';
import { work, WATCHED_SWEEP_MS, type WorkHost } from '../../src/core/engine/work.js';
import { defineWorkflow, RulvarError } from '../../src/core/index.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { memoryJournal } from '../../src/core/journal/memory.js';
import type { JournalStore } from '../../src/core/journal/store.js';
import { caught } from '../core/helpers.js';
import { approvalEntry, ASKED_AUDIT } from './approval-entry.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const wf = defineWorkflow({ name: 'w' }, async () => 1) as Workflow<never, unknown>;
const start = (workflow = 'w') => entry({ type: 'run:start', workflow, args: null, at: new Date(NOW).toISOString() });
const failed = (code: string): RunOutcome => ({ status: 'failed', error: new RulvarError(code as never, code) });

interface Harness {
  readonly store: JournalStore;
  readonly host: WorkHost;
  /** Run ids in the order resumed. */
  readonly resumed: string[];
  readonly held: Set<string>;
  /** Calls the wake the worker gave onResolved. */
  resolved(runId: string): void;
  readonly unsubscribed: () => boolean;
}

async function harness(runs: Record<string, JournalEntry[]>, outcome: (runId: string, signal: AbortSignal) => RunOutcome | Promise<RunOutcome> = () => ({ status: 'completed', value: 1 })): Promise<Harness> {
  const store = memoryJournal();
  for (const [runId, entries] of Object.entries(runs)) await store.append(runId, entries, 0);
  const resumed: string[] = [];
  const held = new Set<string>();
  let wake: (runId: string) => void = () => undefined;
  let unsubscribed = false;
  const host: WorkHost = {
    store,
    holds: (runId) => held.has(runId),
    resume: async (runId, _workflow, signal) => {
      resumed.push(runId);
      const result = await outcome(runId, signal);
      return { outcome: result, length: (await store.load(runId)).length };
    },
    onResolved: (given) => ((wake = given), () => void (unsubscribed = true)),
  };
  return { store, host, resumed, held, resolved: (runId) => wake(runId), unsubscribed: () => unsubscribed };
}

const ticks = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers({ now: NOW });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('work(): options', () => {
  it('refuses what it cannot use, saying what it needs', async () => {
    const { host } = await harness({});
    const signal = new AbortController().signal;
    const cases: [unknown, string, string][] = [
      [null, 'config.invalid_value', 'engine.work needs options: { workflows, signal, concurrency?, pollMs? }'],
      [{ workflows: [wf] }, 'config.missing_key', 'engine.work needs signal: an AbortSignal that stops it'],
      [{ signal }, 'config.missing_key', 'engine.work needs workflows: the workflows it may resume'],
      [{ signal, workflows: [{ name: 'w' }] }, 'config.invalid_value', 'engine.work: every workflow must be made by defineWorkflow'],
      [{ signal, workflows: [wf, defineWorkflow({ name: 'w' }, async () => 2)] }, 'config.invalid_value', 'engine.work: two workflows are named "w"'],
      [{ signal, workflows: [wf], concurrency: 0 }, 'config.invalid_value', 'engine.work: concurrency is a whole number from 1 to 1000, not 0'],
      [{ signal, workflows: [wf], concurrency: 1_001 }, 'config.invalid_value', 'engine.work: concurrency is a whole number from 1 to 1000, not 1001'],
      [{ signal, workflows: [wf], concurrency: 1.5 }, 'config.invalid_value', 'engine.work: concurrency is a whole number from 1 to 1000, not 1.5'],
      [{ signal, workflows: [wf], pollMs: 9 }, 'config.invalid_value', 'engine.work: pollMs is a whole number of milliseconds from 10 to 2147483647, not 9'],
      [{ signal, workflows: [wf], pollMs: 2 ** 31 }, 'config.invalid_value', 'engine.work: pollMs is a whole number of milliseconds from 10 to 2147483647, not 2147483648'],
    ];
    for (const [options, code, message] of cases) {
      const error = (await caught(() => work(host, options as never))) as RulvarError;
      expect([code, message]).toEqual([error.code, error.message]);
    }
    // The edges are taken.
    const stop = new AbortController();
    stop.abort();
    await work(host, { signal: stop.signal, workflows: [wf], concurrency: 1_000, pollMs: 10 });
    await work(host, { signal: stop.signal, workflows: [wf], concurrency: 1, pollMs: 2 ** 31 - 1 });
  });

  it('a store that cannot list its runs is journal.cannot_list, before anything else', async () => {
    const { host } = await harness({});
    const store: JournalStore = { load: async () => [], append: async () => undefined };
    const error = (await caught(() => work({ ...host, store }, { signal: new AbortController().signal, workflows: [wf] }))) as RulvarError;
    expect([error.code, error.message]).toEqual(['journal.cannot_list', 'engine.work() needs a journal store that lists its runs (memory, file, Postgres); this store has no runs()']);
  });

  it('a signal that has already aborted: it returns reading nothing', async () => {
    const { host, resumed } = await harness({ r: [start()] });
    let listed = 0;
    const store: JournalStore = { ...host.store, load: host.store.load, append: host.store.append, runs: async () => ((listed += 1), ['r']) };
    const stop = new AbortController();
    stop.abort();
    await work({ ...host, store }, { signal: stop.signal, workflows: [wf] });
    expect([listed, resumed]).toEqual([0, []]);
  });
});

describe('work(): what it resumes, and when', () => {
  it('resumes a run with work at once; a completed run is never looked at again', async () => {
    const h = await harness({ r: [start()] });
    let loads = 0;
    const store: JournalStore = { ...h.store, load: (runId) => ((loads += 1), h.store.load(runId)), append: h.store.append, runs: h.store.runs! };
    const stop = new AbortController();
    const done = work({ ...h.host, store }, { signal: stop.signal, workflows: [wf], pollMs: 100 });
    await ticks(0);
    expect(h.resumed).toEqual(['r']);
    const after = loads;
    await ticks(1_000);
    h.resolved('r');
    await ticks(0);
    expect([h.resumed, loads]).toEqual([['r'], after]);
    stop.abort();
    await done;
  });

  it('a failed run is not resumed again until its journal grows; a failure that says another engine has it is retried at the next poll', async () => {
    const codes: Record<string, string> = { broken: 'workflow.failed', claimed: 'run.claimed' };
    const h = await harness({ broken: [start()], claimed: [start()] }, (runId) => failed(codes[runId]!));
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 100 });
    await ticks(0);
    expect([...h.resumed].sort()).toEqual(['broken', 'claimed']);
    await ticks(100);
    expect(h.resumed.filter((id) => id === 'broken')).toHaveLength(1);
    expect(h.resumed.filter((id) => id === 'claimed')).toHaveLength(2);
    // Something new in its journal (a resolution, a step another engine wrote): worth a try again.
    await h.store.append('broken', [entry({ type: 'step', name: 's', value: 1 })], 1);
    await ticks(100);
    expect(h.resumed.filter((id) => id === 'broken')).toHaveLength(2);
    stop.abort();
    await done;
  });

  it('every passing failure is retried: run.claimed, run.aborted, run.lease_lost, journal.conflict, journal.unavailable', async () => {
    const passing = ['run.claimed', 'run.aborted', 'run.lease_lost', 'journal.conflict', 'journal.unavailable'];
    const runs = Object.fromEntries(passing.map((code) => [code, [start()]]));
    const h = await harness(runs, (runId) => failed(runId));
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 50 });
    await ticks(0);
    await ticks(50);
    for (const code of passing) expect({ code, times: h.resumed.filter((id) => id === code).length }).toEqual({ code, times: 2 });
    stop.abort();
    await done;
  });

  it('a suspended run is woken at its deadline\'s millisecond, not before, and resumed then', async () => {
    const at = NOW + 5_000;
    const h = await harness({ s: [start(), { ...approvalEntry('k', new Date(at).toISOString()) }] });
    const stop = new AbortController();
    // A poll far off: only the deadline timer can bring the run back in time.
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 60_000 });
    await ticks(4_999);
    expect(h.resumed).toEqual([]);
    await ticks(1);
    expect(h.resumed).toEqual(['s']);
    stop.abort();
    await done;
  });

  it("a run that suspends as it is worked is woken at the earliest deadline its outcome names, not before, and nothing else is read", async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const pending = (runId: string, key: string, deadlineAt?: string): PendingApproval => ({ key, runId, toolName: 'lookup', input: {}, audit: ASKED_AUDIT, ...(deadlineAt === undefined ? {} : { deadlineAt }) });
    const h: Harness = await harness({ s: [start()], t: [start()] }, async (runId) => {
      if (h.resumed.filter((id) => id === runId).length > 1) return { status: 'completed', value: 1 };
      const [early, late] = runId === 's' ? [NOW + 2_000, NOW + 3_000] : [NOW + 5_000, NOW + 6_000];
      // The earlier deadline first: a later one must not replace it.
      await h.store.append(runId, [approvalEntry('k2', iso(early)), approvalEntry('k1', iso(late)), approvalEntry('k3')], 1);
      return { status: 'suspended', approvals: [pending(runId, 'k2', iso(early)), pending(runId, 'k1', iso(late)), pending(runId, 'k3')] };
    });
    const loads: string[] = [];
    const load = h.store.load.bind(h.store);
    h.store.load = (runId) => (loads.push(runId), load(runId));
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 60_000 });
    await ticks(0);
    expect(h.resumed.sort()).toEqual(['s', 't']);
    // Each read once by the worker to find its work, once by this host's resume: an approval
    // without a deadline arms no wake.
    expect(loads.sort()).toEqual(['s', 's', 't', 't']);
    loads.length = 0;
    await ticks(1_999);
    expect([h.resumed.length, loads]).toEqual([2, []]);
    await ticks(1);
    expect(h.resumed).toEqual(['s', 't', 's']);
    // The other run's deadline is later: it was not read when the first one passed.
    expect(loads.filter((id) => id === 't')).toEqual([]);
    await ticks(3_000);
    expect(h.resumed).toEqual(['s', 't', 's', 't']);
    stop.abort();
    await done;
  });

  it('an approval this engine resolves wakes its run at once, whatever pollMs', async () => {
    const h = await harness({ s: [start(), approvalEntry('k')] });
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 60_000 });
    await ticks(0);
    expect(h.resumed).toEqual([]);
    await h.store.append('s', [entry({ type: 'resolution', key: 'k', decision: 'allow', by: 'external', at: new Date(NOW).toISOString() })], 2);
    h.resolved('s');
    await ticks(0);
    expect(h.resumed).toEqual(['s']);
    stop.abort();
    await done;
  });

  it('leaves alone a run the engine holds, a run of a workflow it was not given, and an ended run', async () => {
    const h = await harness({ held: [start()], other: [start('another workflow')], ended: [start(), entry({ type: 'run:end', value: 1 })] });
    h.held.add('held');
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 100 });
    await ticks(500);
    expect(h.resumed).toEqual([]);
    h.held.delete('held');
    await ticks(100);
    expect(h.resumed).toEqual(['held']);
    stop.abort();
    await done;
  });

  it('at most `concurrency` at once; a run woken while it is worked is taken again after', async () => {
    let inFlight = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const runs = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`r${i}`, [start()]]));
    const h = await harness(runs, async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => releases.push(resolve));
      inFlight -= 1;
      return failed('run.claimed');
    });
    const stop = new AbortController();
    const done = work(h.host, { signal: stop.signal, workflows: [wf], concurrency: 2, pollMs: 60_000 });
    await ticks(0);
    expect(h.resumed).toEqual(['r0', 'r1']);
    h.resolved('r0');
    while (releases.length > 0) {
      releases.shift()!();
      await ticks(0);
    }
    expect(most).toBe(2);
    expect(h.resumed.filter((id) => id === 'r0')).toHaveLength(2);
    expect([...new Set(h.resumed)].sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    stop.abort();
    await done;
  });
});

describe('work(): sweeps, watch and stopping', () => {
  it('a store with watch: its wake-ups are taken at once, and it is swept every 30 s, not every pollMs', async () => {
    const h = await harness({});
    let listed = 0;
    let wakeUp: (runId: string) => void = () => undefined;
    let watchSignal: AbortSignal | undefined;
    const store: JournalStore = {
      load: h.store.load,
      append: h.store.append,
      runs: async () => ((listed += 1), []),
      watch: (wake, signal) => ((wakeUp = wake), (watchSignal = signal)),
    };
    const stop = new AbortController();
    const done = work({ ...h.host, store }, { signal: stop.signal, workflows: [wf], pollMs: 100 });
    await ticks(0);
    expect(listed).toBe(1);
    await ticks(WATCHED_SWEEP_MS - 1);
    expect(listed).toBe(1);
    await ticks(1);
    expect(listed).toBe(2);
    await h.store.append('new', [start()], 0);
    wakeUp('new');
    await ticks(0);
    expect(h.resumed).toEqual(['new']);
    stop.abort();
    await done;
    expect(watchSignal?.aborted).toBe(true);
  });

  it('a watch that throws leaves the sweeps; a store without one is swept every pollMs', async () => {
    const h = await harness({});
    let listed = 0;
    const store: JournalStore = {
      load: h.store.load,
      append: h.store.append,
      runs: async () => ((listed += 1), []),
      watch: () => {
        throw new Error('no listener available');
      },
    };
    const stop = new AbortController();
    const done = work({ ...h.host, store }, { signal: stop.signal, workflows: [wf], pollMs: 100 });
    await ticks(0);
    expect(listed).toBe(1);
    stop.abort();
    await done;
    const plain = await harness({});
    let polled = 0;
    const polledStore: JournalStore = { load: plain.store.load, append: plain.store.append, runs: async () => ((polled += 1), []) };
    const again = new AbortController();
    const running = work({ ...plain.host, store: polledStore }, { signal: again.signal, workflows: [wf], pollMs: 100 });
    await ticks(0);
    await ticks(99);
    expect(polled).toBe(1);
    await ticks(1);
    expect(polled).toBe(2);
    again.abort();
    await running;
  });

  it('an abort ends it once the runs in flight have settled, aborting them; it unsubscribes and leaves no timer', async () => {
    let resumeSignal: AbortSignal | undefined;
    let settle!: () => void;
    const h = await harness({ r: [start()], s: [start(), approvalEntry('k', new Date(NOW + 60_000).toISOString())] }, (_runId, signal) => {
      resumeSignal = signal;
      return new Promise<RunOutcome>((resolve) => (settle = () => resolve(failed('run.aborted'))));
    });
    const stop = new AbortController();
    let finished = false;
    const done = work(h.host, { signal: stop.signal, workflows: [wf], pollMs: 100 }).then(() => (finished = true));
    await ticks(0);
    expect(h.resumed).toEqual(['r']);
    stop.abort();
    await ticks(0);
    expect([resumeSignal?.aborted, (resumeSignal?.reason as RulvarError | undefined)?.code, finished]).toEqual([true, 'run.aborted', false]);
    settle();
    await done;
    expect(h.unsubscribed()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    // Woken after it stopped: nothing is taken.
    h.resolved('r');
    await ticks(1_000);
    expect(h.resumed).toEqual(['r']);
  });
});
