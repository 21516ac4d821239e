/**
 * The lease of a store that has no `claim` of its own, kept in the run's journal as `lease`
 * entries `{ holder, until }` (`until` epoch ms, 0 = released). Any store that keeps the
 * `expectedLength` promise of `append` gets correct leases this way, only slower (a load per
 * claim and per renewal).
 *
 * Claim: load; refused while the last lease entry is another holder's and unexpired; else
 * append a lease entry at the loaded length. Fencing comes from that length: a claimer's
 * entry moves it, so the old holder's next append or renewal conflicts, and on reloading it
 * finds a lease entry of another holder and fails `run.lease_lost` without writing. Other
 * writers' entries (a `resolveExternal`, which takes no lease) leave the conflict as it is
 * for the engine to take in.
 *
 * It assumes the writers' clocks agree to well within the lease: `until` is one engine's
 * clock read by another's.
 */
import { RulvarError } from '../errors.js';
import { JOURNAL_FORMAT, type JournalEntry } from './entries.js';
import { checkLeaseRequest, leaseLost, runClaimed } from './lease-errors.js';
import type { JournalLease, JournalStore, LeaseRequest } from './store.js';

/** Attempts at a claim or renewal while other writers keep moving the journal. */
const CONFLICT_RETRIES = 8;

type LeaseEntry = Extract<JournalEntry, { type: 'lease' }>;

export async function entryLease(store: JournalStore, runId: string, request: LeaseRequest): Promise<JournalLease> {
  const { holder, ms } = checkLeaseRequest(request);
  const leaseEntry = (until: number): LeaseEntry => Object.freeze({ v: JOURNAL_FORMAT, type: 'lease', holder, until });
  /** How many entries this holder knows the journal has: where its next lease entry goes. */
  let known = 0;
  let lost = false;
  let released = false;
  /** Until when this holder's latest lease entry holds the run: past it, another may claim it. */
  let until = 0;
  /** The renewal in flight: a release goes after it, so the release is the lease's last word. */
  let renewing: Promise<void> = Promise.resolve();

  const lose = (): never => {
    lost = true;
    throw leaseLost(runId, holder);
  };
  /** After a conflict: the journal as it is now, unless another holder claimed the run since `from`. */
  const reload = async (from: number): Promise<JournalEntry[]> => {
    const entries = await store.load(runId);
    for (let i = from; i < entries.length; i += 1) {
      const e = entries[i];
      if (e?.type === 'lease' && e.holder !== holder) lose();
    }
    known = entries.length;
    return entries;
  };
  /** Appends a lease entry at `known`, taking in other writers' entries on a conflict. */
  const appendLease = async (end: () => number): Promise<void> => {
    for (let tries = 0; ; tries += 1) {
      try {
        const at = end();
        await store.append(runId, [leaseEntry(at)], known);
        known += 1;
        until = at;
        return;
      } catch (error) {
        if (!isConflict(error) || tries >= CONFLICT_RETRIES) throw error;
        await reload(known);
      }
    }
  };

  // The claim itself: the same loop, with the refusal checked on each load.
  for (let tries = 0; ; tries += 1) {
    const entries = await store.load(runId);
    const last = lastLease(entries);
    const now = Date.now();
    if (last !== undefined && last.holder !== holder && last.until > now) throw runClaimed(runId);
    try {
      await store.append(runId, [leaseEntry(now + ms)], entries.length);
      known = entries.length + 1;
      until = now + ms;
      break;
    } catch (error) {
      if (!isConflict(error) || tries >= CONFLICT_RETRIES) throw error;
    }
  }

  return {
    runId,
    holder,
    async load() {
      if (lost) lose();
      return reload(known);
    },
    async append(entries, expectedLength) {
      // Expired unrenewed: another holder may have the run by now, whether it wrote yet or not.
      if (lost || released || Date.now() >= until) lose();
      try {
        await store.append(runId, entries, expectedLength);
      } catch (error) {
        if (isConflict(error)) await reload(expectedLength);
        throw error;
      }
      known = Math.max(known, expectedLength + entries.length);
    },
    async renew() {
      if (lost || released || Date.now() >= until) lose();
      const renewal = appendLease(() => Date.now() + ms);
      renewing = renewal.catch(() => undefined);
      await renewal;
    },
    async release() {
      if (lost || released) return;
      released = true;
      try {
        await renewing;
        if (!lost) await appendLease(() => 0);
      } catch {
        // Never rejects: an unreleased entry lease simply expires.
      }
    },
  };
}

function lastLease(entries: readonly JournalEntry[]): LeaseEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const e = entries[i];
    if (e?.type === 'lease') return e;
  }
  return undefined;
}

function isConflict(error: unknown): boolean {
  return RulvarError.is(error) && error.code === 'journal.conflict';
}
