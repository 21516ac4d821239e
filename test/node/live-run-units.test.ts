/**
 * Unit tests of LiveRun (src/core/engine/live-run.ts), the accounting of a run while an engine
 * executes it, on a fake clock: it settles once (signal aborted with a stackless `run.aborted`,
 * `run:end` emitted once, the result held for the lease's release at most 2 s); it suspends
 * only once nothing it counts is busy and an approval is parked, and only after the current
 * macrotask; a resolution closes a parked approval in the journal, announces it and wakes the
 * agent in place, unless the deadline has passed (then the timeout is journaled and the answer
 * is false); a parked deadline closes its approval by timeout at its millisecond; settling
 * cancels those timers; a resolution after settling goes to the engine's fallback.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entry } from '../../src/core/engine/entries.js';
import { LiveRun } from '../../src/core/engine/live-run.js';
import type { RunLease } from '../../src/core/engine/run-lease.js';
import { RunLog } from '../../src/core/engine/run-log.js';
import type { RunOutcome } from '../../src/core/engine/types.js';
import { RulvarError } from '../../src/core/errors.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { memoryJournal } from '../../src/core/journal/memory.js';
import type { JournalStore } from '../../src/core/journal/store.js';
import { approvalEntry, type Approval } from './approval-entry.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const DONE: RunOutcome = { status: 'completed', value: 1 };

interface Fixture {
  readonly run: LiveRun;
  readonly store: JournalStore;
  readonly fallback: unknown[][];
  readonly events: string[];
  readonly journaled: () => Promise<JournalEntry[]>;
}

async function liveRun(approvals: Approval[] = [], fallbackAnswer = true): Promise<Fixture> {
  const store = memoryJournal();
  await store.append('r', [entry({ type: 'run:start', workflow: 'w', args: null, at: new Date(NOW).toISOString() }), ...approvals], 0);
  const fallback: unknown[][] = [];
  const run = new LiveRun('r', 'w', async (...args) => (fallback.push(args), fallbackAnswer));
  run.log = await RunLog.load(store, 'r');
  const events: string[] = [];
  run.events.on('run:end', ({ outcome }) => events.push(`run:end ${outcome.status}`));
  run.events.on('approval:resolved', ({ key, decision, by }) => events.push(`resolved ${key} ${decision} by ${by}`));
  return { run, store, fallback, events, journaled: () => store.load('r') };
}

/** What `promise` settled to by the fake clock's current instant (its microtasks run), or 'pending'. */
async function state<T>(promise: Promise<T>): Promise<T | 'pending'> {
  let settled: { value: T } | undefined;
  void promise.then((value) => (settled = { value }), () => undefined);
  await vi.advanceTimersByTimeAsync(0);
  return settled === undefined ? 'pending' : settled.value;
}

beforeEach(() => {
  vi.useFakeTimers({ now: NOW });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('LiveRun: settling', () => {
  it('settles once: the first outcome is the result, run:end is emitted once, the signal aborts with run.aborted', async () => {
    const { run, events } = await liveRun();
    expect(run.isSettled).toBe(false);
    run.settle(DONE);
    run.settle({ status: 'failed', error: new RulvarError('workflow.failed', 'late') });
    expect(run.isSettled).toBe(true);
    expect(await run.outcome).toBe(DONE);
    expect(events).toEqual(['run:end completed']);
    const reason = run.controller.signal.reason as RulvarError;
    expect([RulvarError.is(reason), reason.code, reason.message]).toEqual([true, 'run.aborted', 'run r settled completed']);
  });

  it('the abort reason carries no stack frames, and the stack limit is put back', async () => {
    const { run } = await liveRun();
    const limit = Error.stackTraceLimit;
    run.settle(DONE);
    expect(String((run.controller.signal.reason as Error).stack)).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('after').stack).toMatch(/\n\s+at /);
  });

  it('beforeEffect: nothing to wait for without a lease; after settling, the signal\'s reason', async () => {
    const { run } = await liveRun();
    expect(run.beforeEffect()).toBeUndefined();
    run.settle(DONE);
    await expect(run.beforeEffect()).rejects.toBe(run.controller.signal.reason);
  });

  it('the result waits for the lease\'s release, and no longer than 2 s for one that never ends', async () => {
    const quick = await liveRun();
    let release!: () => void;
    quick.run.lease = { release: () => new Promise<void>((resolve) => (release = resolve)) } as unknown as RunLease;
    quick.run.settle(DONE);
    expect(await state(quick.run.outcome)).toBe('pending');
    release();
    expect(await state(quick.run.outcome)).toBe(DONE);

    const stuck = await liveRun();
    stuck.run.lease = { release: () => new Promise<void>(() => undefined) } as unknown as RunLease;
    stuck.run.settle(DONE);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(await state(stuck.run.outcome)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await state(stuck.run.outcome)).toBe(DONE);
  });
});

describe('LiveRun: suspending', () => {
  it('suspends once its only agent parks, after the current macrotask, with the parked approval', async () => {
    const { run, events } = await liveRun([approvalEntry('k', new Date(NOW + 60_000).toISOString())]);
    const parking = run.busy(() => run.park(run.log.approvals.get('k')!));
    await Promise.resolve();
    expect(run.isSettled).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(run.isSettled).toBe(true);
    expect(await run.outcome).toEqual({
      status: 'suspended',
      approvals: [{ key: 'k', runId: 'r', toolName: 'lookup', input: {}, audit: { verdict: 'ask', layer: 'default', advisory: [] }, deadlineAt: new Date(NOW + 60_000).toISOString() }],
    });
    expect(events).toEqual(['run:end suspended']);
    void parking;
  });

  it('does not suspend while another operation is busy, and does once it ends', async () => {
    const { run } = await liveRun([approvalEntry('k')]);
    let finishOther!: () => void;
    const other = run.busy(() => new Promise<void>((resolve) => (finishOther = resolve)));
    void run.busy(() => run.park(run.log.approvals.get('k')!));
    await vi.advanceTimersByTimeAsync(10);
    expect(run.isSettled).toBe(false);
    finishOther();
    await other;
    await vi.advanceTimersByTimeAsync(0);
    expect((await run.outcome).status).toBe('suspended');
  });

  it('an operation that starts before the macrotask ends keeps the run from suspending', async () => {
    const { run } = await liveRun([approvalEntry('k')]);
    void run.busy(() => run.park(run.log.approvals.get('k')!));
    await Promise.resolve();
    // The workflow goes on from a finished branch and starts its next step at once.
    void run.busy(() => new Promise<void>(() => undefined));
    await vi.advanceTimersByTimeAsync(10);
    expect(run.isSettled).toBe(false);
  });
});

describe('LiveRun: resolving', () => {
  it('a resolution closes the parked approval: journaled, announced, the agent woken in place with it', async () => {
    const { run, events, journaled } = await liveRun([approvalEntry('k')]);
    const woken = run.busy(() => run.park(run.log.approvals.get('k')!));
    expect(await run.resolve('k', { decision: 'allow', reason: 'fine' }, { by: 'operator', decider: 'ann' })).toBe(true);
    expect(await woken).toEqual({ decision: 'allow', by: 'operator', reason: 'fine' });
    expect((await journaled()).at(-1)).toEqual({ v: 1, type: 'resolution', key: 'k', decision: 'allow', by: 'operator', reason: 'fine', decider: 'ann', at: new Date(NOW).toISOString() });
    expect(events).toEqual(['resolved k allow by operator']);
    // Without a reason, the resolution has no reason key at all (an undefined one would reach events and JSON).
    const { run: other } = await liveRun([approvalEntry('q')]);
    const plain = other.busy(() => other.park(other.log.approvals.get('q')!));
    await other.resolve('q', 'deny', {});
    expect(Object.keys(await plain)).toEqual(['decision', 'by']);
    // Closed: a second resolution is refused and writes nothing.
    const length = (await journaled()).length;
    expect(await run.resolve('k', 'deny', {})).toBe(false);
    expect(await run.resolve('unknown', 'allow', {})).toBe(false);
    expect((await journaled()).length).toBe(length);
    await vi.advanceTimersByTimeAsync(0);
    expect(run.isSettled).toBe(false);
  });

  it('a resolution after the deadline, before its timer ran, journals the timeout and answers false', async () => {
    const at = NOW + 1_000;
    const { run, events, journaled } = await liveRun([approvalEntry('k', new Date(at).toISOString(), 'allow')]);
    // Parked with its deadline timer, then the clock jumps past it without running timers.
    const woken = run.busy(() => run.park(run.log.approvals.get('k')!));
    vi.setSystemTime(at);
    expect(await run.resolve('k', 'deny', {})).toBe(false);
    expect(await woken).toEqual({ decision: 'allow', by: 'timeout' });
    expect((await journaled()).at(-1)).toMatchObject({ type: 'resolution', key: 'k', decision: 'allow', by: 'timeout' });
    expect(events).toEqual(['resolved k allow by timeout']);
  });

  it('a parked deadline closes its approval by timeout at its millisecond (deny unless the approval says)', async () => {
    const at = NOW + 5_000;
    const { run, journaled } = await liveRun([approvalEntry('k', new Date(at).toISOString())]);
    // Something else stays busy, so the run does not suspend and the timer is the one to close it.
    void run.busy(() => new Promise<void>(() => undefined));
    const woken = run.busy(() => run.park(run.log.approvals.get('k')!));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await state(woken)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await woken).toEqual({ decision: 'deny', by: 'timeout' });
    expect((await journaled()).at(-1)).toEqual({ v: 1, type: 'resolution', key: 'k', decision: 'deny', by: 'timeout', at: new Date(at).toISOString() });
  });

  it('settling cancels the parked deadlines: nothing is journaled when they come', async () => {
    const at = NOW + 1_000;
    const { run, journaled } = await liveRun([approvalEntry('k', new Date(at).toISOString())]);
    void run.busy(() => run.park(run.log.approvals.get('k')!));
    run.settle(DONE);
    const length = (await journaled()).length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await journaled()).length).toBe(length);
  });

  it('after settling, a resolution goes to the engine\'s fallback with what it was given, and its answer is returned', async () => {
    const { run, fallback } = await liveRun([approvalEntry('k')], false);
    run.settle(DONE);
    expect(await run.resolve('k', 'allow', { by: 'operator' })).toBe(false);
    expect(fallback).toEqual([['k', 'allow', { by: 'operator' }]]);
  });

  it('another engine\'s resolution taken in wakes the parked agent; waking an unknown key does nothing', async () => {
    const { run } = await liveRun([approvalEntry('k', new Date(NOW + 1_000).toISOString())]);
    const woken = run.busy(() => run.park(run.log.approvals.get('k')!));
    run.wake('nobody', { decision: 'allow', by: 'external' });
    run.wake('k', { decision: 'allow', by: 'external' });
    expect(await woken).toEqual({ decision: 'allow', by: 'external' });
    // Its deadline timer went with it: nothing closes it by timeout later.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run.log.resolutions.has('k')).toBe(false);
  });
});
