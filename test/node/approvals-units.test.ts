/**
 * Unit tests of src/core/engine/approvals.ts, the rules the approval suites reach only through
 * whole runs: what a decision means (anything but an explicit allow is a deny; a reason only
 * when it is text, a decider only when it is text, both cut), what a pending approval shows,
 * and resolving on a journal that keeps conflicting: retried a bounded number of times, while
 * any other failure is thrown at once.
 */
import { describe, expect, it } from 'vitest';
import { normalizeDecision, pendingOf, resolutionOf, resolveSettled, unknownRun } from '../../src/core/engine/approvals.js';
import { entry } from '../../src/core/engine/entries.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import type { JournalStore } from '../../src/core/journal/store.js';
import { RulvarError, memoryJournal } from '../../src/node/index.js';
import { caught } from '../core/helpers.js';
import { approvalEntry, type Approval } from './approval-entry.js';

const approval = (key: string, deadlineAt?: string): Approval => approvalEntry(key, deadlineAt, undefined, { q: 1 });

describe('normalizeDecision', () => {
  it('only an explicit allow allows; by is operator only when said so', () => {
    expect(normalizeDecision('allow', undefined)).toEqual({ decision: 'allow', by: 'external' });
    expect(normalizeDecision({ decision: 'allow' }, { by: 'operator' })).toEqual({ decision: 'allow', by: 'operator' });
    for (const other of ['deny', 'ALLOW', { decision: 'yes' }, null, 1, undefined]) expect(normalizeDecision(other, { by: 'nobody' as never }).decision).toBe('deny');
  });

  it('the decision\'s own text reason first, then the option\'s; a reason that is not text is none; long ones are cut', () => {
    expect(normalizeDecision({ decision: 'deny', reason: 'mine' }, { reason: 'theirs' }).reason).toBe('mine');
    expect(normalizeDecision({ decision: 'deny', reason: 42 } as never, { reason: 'theirs' }).reason).toBe('theirs');
    expect(Object.hasOwn(normalizeDecision({ decision: 'deny', reason: 42 } as never, undefined), 'reason')).toBe(false);
    expect(normalizeDecision('deny', { reason: 'r'.repeat(2_001) }).reason).toBe(`${'r'.repeat(2_000)}… (cut: 2001 characters in all)`);
    expect(normalizeDecision('deny', { reason: 'r'.repeat(2_000) }).reason).toHaveLength(2_000);
  });

  it('a decider is kept when it is text, cut at 200 characters, and left out otherwise', () => {
    expect(normalizeDecision('allow', { decider: 'alice' })).toEqual({ decision: 'allow', by: 'external', decider: 'alice' });
    expect(normalizeDecision('allow', { decider: 'd'.repeat(201) }).decider).toBe(`${'d'.repeat(200)}… (cut: 201 characters in all)`);
    expect(Object.hasOwn(normalizeDecision('allow', { decider: 7 as never }), 'decider')).toBe(false);
  });
});

describe('pendingOf, resolutionOf, unknownRun', () => {
  it('a pending approval has a deadlineAt only when one was journaled', () => {
    expect(pendingOf('r', approval('k'))).toEqual({ key: 'k', runId: 'r', toolName: 'lookup', input: { q: 1 }, audit: { verdict: 'ask', layer: 'default', advisory: [] } });
    expect(Object.hasOwn(pendingOf('r', approval('k')), 'deadlineAt')).toBe(false);
    expect(pendingOf('r', approval('k', '2026-12-04T00:00:00.000Z')).deadlineAt).toBe('2026-12-04T00:00:00.000Z');
  });

  it('a resolution read back carries its reason only when it had one', () => {
    const plain = entry({ type: 'resolution', key: 'k', decision: 'deny', by: 'timeout', at: 'x' }) as Extract<JournalEntry, { type: 'resolution' }>;
    expect(resolutionOf(plain)).toEqual({ key: 'k', decision: 'deny', by: 'timeout' });
    expect(Object.hasOwn(resolutionOf(plain), 'reason')).toBe(false);
    expect(resolutionOf({ ...plain, reason: 'late' })).toEqual({ key: 'k', decision: 'deny', by: 'timeout', reason: 'late' });
  });

  it('an unknown run is journal.unknown_run naming it', () => {
    const error = unknownRun('run "7"');
    expect([error.code, error.message]).toEqual(['journal.unknown_run', 'there is no journaled run "run \\"7\\""']);
  });
});

describe('resolveSettled on a journal that fails its appends', () => {
  /** A memory journal holding one open approval, whose appends fail with `failure`. */
  async function failing(failure: () => Error): Promise<{ store: JournalStore; loads: () => number }> {
    const inner = memoryJournal();
    await inner.append('r', [approval('k')], 0);
    let loads = 0;
    const store: JournalStore = {
      load: (runId) => ((loads += 1), inner.load(runId)),
      append: () => Promise.reject(failure()),
    };
    return { store, loads: () => loads };
  }

  it('a conflict on every try gives up after 9 tries with journal.conflict', async () => {
    const { store, loads } = await failing(() => new RulvarError('journal.conflict', 'moved'));
    expect(((await caught(() => resolveSettled(store, 'r', 'k', 'allow', undefined))) as RulvarError).code).toBe('journal.conflict');
    expect(loads()).toBe(9);
  });

  it('any other failure, typed or not, is thrown at the first try', async () => {
    for (const failure of [() => new RulvarError('journal.unavailable', 'disk'), () => new Error('boom')]) {
      const { store, loads } = await failing(failure);
      expect(await caught(() => resolveSettled(store, 'r', 'k', 'allow', undefined))).toMatchObject({ message: failure().message });
      expect(loads()).toBe(1);
    }
  });

  it('a conflict once, then a clean append, resolves', async () => {
    const inner = memoryJournal();
    await inner.append('r', [approval('k')], 0);
    let conflicts = 1;
    const store: JournalStore = {
      load: (runId) => inner.load(runId),
      append: (runId, entries, expected) => (conflicts-- > 0 ? Promise.reject(new RulvarError('journal.conflict', 'moved')) : inner.append(runId, entries, expected)),
    };
    expect(await resolveSettled(store, 'r', 'k', 'allow', { decider: 'op' })).toEqual({ answer: true, written: { decision: 'allow', by: 'external', decider: 'op' } });
    expect((await inner.load('r')).at(-1)).toMatchObject({ type: 'resolution', key: 'k', decider: 'op' });
    expect(await resolveSettled(store, 'r', 'k', 'deny', undefined)).toEqual({ answer: false });
    expect(await resolveSettled(store, 'r', 'nope', 'deny', undefined)).toEqual({ answer: false });
  });
});
