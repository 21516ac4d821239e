/**
 * Unit tests of RunLease (src/core/engine/run-lease.ts) over a lease that records what it is
 * asked, on a fake clock: renewed every third of the lease, one renewal at a time; an effect
 * waits for a renewal only once a third has passed since the last one was sent (not before,
 * and from when it was sent, not answered); only run.lease_lost reaches onLost, from a renewal
 * or a fenced write (in place or not); release is once, never rejects, and ends the timer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunLease } from '../../src/core/engine/run-lease.js';
import { APPEND_NOW, type JournalLease } from '../../src/core/journal/store.js';
import { RulvarError } from '../../src/node/index.js';

const MS = 300;
const lostError = () => new RulvarError('run.lease_lost', 'gone');

function fakeLease(options: { appendNow?: boolean } = {}) {
  const calls = { renew: 0, release: 0, append: 0, now: 0 };
  let answer: () => Promise<void> = () => Promise.resolve();
  let failWith: Error | undefined;
  const lease: JournalLease & { [APPEND_NOW]?: unknown } = {
    runId: 'r',
    holder: 'h',
    load: () => Promise.resolve([]),
    append: () => ((calls.append += 1), failWith === undefined ? Promise.resolve() : Promise.reject(failWith)),
    renew: () => ((calls.renew += 1), answer()),
    release: () => ((calls.release += 1), Promise.reject(new Error('release failed'))),
  };
  if (options.appendNow === true) {
    lease[APPEND_NOW] = () => {
      calls.now += 1;
      if (failWith !== undefined) throw failWith;
    };
  }
  return { lease, calls, setRenew: (next: () => Promise<void>) => (answer = next), fail: (error: Error | undefined) => (failWith = error) };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('RunLease: renewals', () => {
  it('renews every third of the lease and stops when released, which happens once and never rejects', async () => {
    const { lease, calls } = fakeLease();
    const held = new RunLease(lease, MS, Date.now(), () => undefined);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls.renew).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.renew).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls.renew).toBe(3);
    await held.release();
    await held.release();
    expect(calls.release).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.renew).toBe(3);
    expect(await held.check()?.catch((error: RulvarError) => [error.code, error.message])).toEqual(['run.lease_lost', `run ${JSON.stringify(held.lease.runId)} is no longer held by this engine`]);
  });

  it('an effect waits for nothing within a third of the lease, and for one renewal past it, measured from when it was sent', async () => {
    const { lease, calls, setRenew } = fakeLease();
    const claimedAt = Date.now();
    const held = new RunLease(lease, 3_000_000, claimedAt, () => undefined);
    vi.setSystemTime(claimedAt + 1_000_000);
    expect(held.check()).toBeUndefined();
    vi.setSystemTime(claimedAt + 1_000_001);
    let answer = (): void => undefined;
    setRenew(() => new Promise<void>((resolve) => (answer = resolve)));
    const waiting = held.check();
    const again = held.check();
    expect(waiting).toBeInstanceOf(Promise);
    expect(calls.renew).toBe(1);
    expect(again).toBe(waiting);
    // Answered much later: the lease is fresh from when the renewal was sent.
    vi.setSystemTime(claimedAt + 2_000_000);
    answer();
    await waiting;
    expect(held.check()).toBeUndefined();
    vi.setSystemTime(claimedAt + 2_000_002);
    setRenew(() => Promise.resolve());
    await held.check();
    expect(calls.renew).toBe(2);
    await held.release();
  });
});

describe('RunLease: losing the lease', () => {
  it('a renewal answering run.lease_lost reaches onLost and the effect; another failure reaches only the effect', async () => {
    const { lease, setRenew } = fakeLease();
    const lost: string[] = [];
    const held = new RunLease(lease, 3, Date.now() - 10, (error) => lost.push(error.code));
    setRenew(() => Promise.reject(new Error('network')));
    expect(await held.check()?.catch((error: Error) => error.message)).toBe('network');
    expect(lost).toEqual([]);
    setRenew(() => Promise.reject(lostError()));
    expect(await held.check()?.catch((error: RulvarError) => error.code)).toBe('run.lease_lost');
    expect(lost).toEqual(['run.lease_lost']);
    await held.release();
  });

  for (const appendNow of [false, true]) {
    it(`a fenced write ${appendNow ? 'in place' : 'through append'} that meets run.lease_lost reaches onLost and still fails`, async () => {
      const { lease, calls, fail } = fakeLease({ appendNow });
      const lost: string[] = [];
      const held = new RunLease(lease, MS, Date.now(), (error) => lost.push(error.code));
      const fenced = held.lease as JournalLease & { [APPEND_NOW]?: (runId: string, entries: never[], n: number) => void };
      expect(typeof fenced[APPEND_NOW]).toBe(appendNow ? 'function' : 'undefined');
      fail(new RulvarError('journal.conflict', 'moved'));
      await expect(fenced.append([], 0)).rejects.toMatchObject({ code: 'journal.conflict' });
      fail(lostError());
      await expect(fenced.append([], 0)).rejects.toMatchObject({ code: 'run.lease_lost' });
      if (appendNow) expect(() => fenced[APPEND_NOW]?.('r', [], 0)).toThrow('gone');
      expect(lost).toEqual(appendNow ? ['run.lease_lost', 'run.lease_lost'] : ['run.lease_lost']);
      expect([calls.append, calls.now]).toEqual([2, appendNow ? 1 : 0]);
      await held.release();
    });
  }
});
