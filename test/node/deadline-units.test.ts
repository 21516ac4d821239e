/**
 * Unit tests of src/core/engine/deadlines.ts, the rules the deadline suites reach only through
 * whole runs (where a timer a little late or a boundary off by one millisecond still passes):
 * a deadline is due at its instant, not after; the next deadline is the earliest open one; a
 * timeout resolution carries the journaled decision; one append closes every passed deadline
 * and none that is open still; and atDeadline's timer neither fires early, nor synchronously,
 * nor keeps a Node process alive.
 */
import process from 'node:process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { atDeadline, closePassedDeadlines, deadlineOf, hasPassed, nextDeadlineOf, timeoutEntry } from '../../src/core/engine/deadlines.js';
import { entry } from '../../src/core/engine/entries.js';
import { RunLog } from '../../src/core/engine/run-log.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { memoryJournal } from '../../src/node/index.js';
import { approvalEntry, type Approval } from './approval-entry.js';


const T0 = Date.parse('2026-12-03T10:00:00.000Z');

const approval = (key: string, deadlineAt?: string, timeoutDecision?: 'allow' | 'deny'): Approval => approvalEntry(key, deadlineAt, timeoutDecision);

async function logOf(entries: JournalEntry[]): Promise<{ log: RunLog; journal: ReturnType<typeof memoryJournal> }> {
  const journal = memoryJournal();
  await journal.append('r', entries, 0);
  return { log: await RunLog.load(journal, 'r'), journal };
}

const iso = (ms: number) => new Date(ms).toISOString();
const resolution = (key: string) => entry({ type: 'resolution', key, decision: 'allow', by: 'external', at: iso(T0) }) as JournalEntry;

describe('deadlineOf and hasPassed', () => {
  it('read the journaled instant; none without one; an unparsable one as long passed', () => {
    expect(deadlineOf(approval('k', iso(T0)))).toBe(T0);
    expect(deadlineOf(approval('k'))).toBeUndefined();
    expect(deadlineOf(approval('k', 'not a date'))).toBe(0);
    expect(hasPassed(approval('k', 'not a date'), T0)).toBe(true);
  });

  it('a deadline is due at its own millisecond, not one before', () => {
    const a = approval('k', iso(T0));
    expect([hasPassed(a, T0 - 1), hasPassed(a, T0), hasPassed(a, T0 + 1)]).toEqual([false, true, true]);
    expect(hasPassed(approval('k'), Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('timeoutEntry', () => {
  it('applies the journaled decision, deny when none was journaled, and is stamped with now', () => {
    expect(timeoutEntry(approval('k', iso(T0), 'allow'), T0 + 5)).toMatchObject({ type: 'resolution', key: 'k', decision: 'allow', by: 'timeout', at: iso(T0 + 5) });
    expect(timeoutEntry(approval('k', iso(T0)), T0)).toMatchObject({ decision: 'deny', by: 'timeout' });
  });
});

describe('nextDeadlineOf', () => {
  it('is the earliest deadline of the open approvals, whatever their order', async () => {
    const { log } = await logOf([approval('late', iso(T0 + 3_000)), approval('none'), approval('early', iso(T0 + 1_000)), approval('middle', iso(T0 + 2_000))]);
    expect(nextDeadlineOf(log)).toBe(T0 + 1_000);
  });

  it('skips approvals already resolved, and is undefined when no open one has a deadline', async () => {
    const { log } = await logOf([approval('early', iso(T0 + 1_000)), approval('late', iso(T0 + 3_000)), resolution('early')]);
    expect(nextDeadlineOf(log)).toBe(T0 + 3_000);
    const none = await logOf([approval('a'), approval('b', iso(T0)), resolution('b')]);
    expect(nextDeadlineOf(none.log)).toBeUndefined();
  });
});

describe('closePassedDeadlines', () => {
  it('closes every passed deadline in one append, and none still open or without a deadline', async () => {
    const { log, journal } = await logOf([approval('past', iso(T0 - 1)), approval('now', iso(T0), 'allow'), approval('future', iso(T0 + 1)), approval('never')]);
    const written = await closePassedDeadlines(log, T0);
    expect(written.map((w) => [w.key, w.decision])).toEqual([['past', 'deny'], ['now', 'allow']]);
    const stored = await journal.load('r');
    expect(stored.slice(4).map((e) => e.type === 'resolution' && e.key)).toEqual(['past', 'now']);
    expect([log.isOpen('past'), log.isOpen('now'), log.isOpen('future'), log.isOpen('never')]).toEqual([false, false, true, true]);
    // Called again at the same instant, nothing is due: nothing is written twice.
    expect(await closePassedDeadlines(log, T0)).toEqual([]);
    expect((await journal.load('r')).length).toBe(6);
  });

  it("a live run writes nothing when another engine resolved the same key first (first closing wins), and wakes on that one", async () => {
    const { log, journal } = await logOf([approval('k', iso(T0))]);
    const woken: string[] = [];
    log.onForeignResolution = (e) => woken.push(`${e.key}:${e.by}`);
    await journal.append('r', [resolution('k')], 1);
    expect(await closePassedDeadlines(log, T0)).toEqual([]);
    expect(woken).toEqual(['k:external']);
    const stored = await journal.load('r');
    expect(stored.map((e) => e.type === 'resolution' && e.by)).toEqual([false, 'external']);
  });

  it('of two passed deadlines, one resolved elsewhere first: the other is closed, the first is never resolved twice', async () => {
    const { log, journal } = await logOf([approval('a', iso(T0)), approval('b', iso(T0))]);
    log.onForeignResolution = () => undefined;
    await journal.append('r', [resolution('a')], 2);
    await closePassedDeadlines(log, T0);
    expect(await closePassedDeadlines(log, T0)).toEqual([]);
    const resolutions = (await journal.load('r')).filter((e) => e.type === 'resolution').map((e) => e.type === 'resolution' && `${e.key}:${e.by}`);
    expect(resolutions).toEqual(['a:external', 'b:timeout']);
  });

  it('a loaded log with no live run behind it rejects the conflict, for its caller to retry over a fresh load', async () => {
    const { log, journal } = await logOf([approval('k', iso(T0))]);
    await journal.append('r', [resolution('k')], 1);
    await expect(closePassedDeadlines(log, T0)).rejects.toMatchObject({ code: 'journal.conflict' });
    const fresh = await RunLog.load(journal, 'r');
    expect(await closePassedDeadlines(fresh, T0)).toEqual([]);
  });
});

describe('atDeadline', () => {
  const cancels: (() => void)[] = [];
  afterEach(() => cancels.splice(0).forEach((cancel) => cancel()));

  it('never fires synchronously, even for a deadline long passed', async () => {
    let fired = 0;
    cancels.push(atDeadline(0, () => (fired += 1)));
    expect(fired).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fired).toBe(1);
  });

  it('fires once, at its instant: not a millisecond before, not one after', () => {
    vi.useFakeTimers({ now: T0 });
    try {
      const fired: number[] = [];
      atDeadline(T0 + 150, () => fired.push(Date.now()));
      vi.advanceTimersByTime(149);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(fired).toEqual([T0 + 150]);
      vi.advanceTimersByTime(10_000);
      expect(fired).toEqual([T0 + 150]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('on the real clock too: not before its instant, and within a second of it', async () => {
    const at = Date.now() + 150;
    const fired: number[] = [];
    cancels.push(atDeadline(at, () => fired.push(Date.now())));
    for (const started = Date.now(); fired.length === 0 && Date.now() - started < 3_000; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(at);
    expect(fired[0]).toBeLessThan(at + 1_000);
  });

  it('a timer that runs before the clock reaches the deadline waits again instead of firing early', () => {
    vi.useFakeTimers({ now: T0 });
    try {
      const fired: number[] = [];
      atDeadline(T0 + 100, () => fired.push(Date.now()));
      // The clock steps back 30 ms (an NTP correction, or a runtime whose timers run a little
      // early): the timer runs at 70 ms by the clock, and must not fire then.
      vi.setSystemTime(T0 - 30);
      vi.advanceTimersByTime(100);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(30);
      expect(fired).toEqual([T0 + 100]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a wait past the longest timer is taken in steps, not handed to one timer that would fire at once', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      let fired = 0;
      cancels.push(atDeadline(Date.now() + 2 ** 33, () => (fired += 1)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fired).toBe(0);
      // Node runs an overlong timeout after 1 ms with this warning; each run would re-arm and spin.
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a cancelled deadline never fires', async () => {
    let fired = 0;
    atDeadline(Date.now() + 30, () => (fired += 1))();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(fired).toBe(0);
  });

  it('holds no Node handle that keeps the process alive, even for a wait past one timer\'s range', () => {
    const refed = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = refed();
    cancels.push(atDeadline(Date.now() + 60_000, () => undefined), atDeadline(Date.now() + 2 ** 33, () => undefined));
    expect(refed()).toBe(before);
  });
});
