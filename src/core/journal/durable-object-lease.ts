/**
 * The Durable Object journal's lease: one record per run in the object's storage
 * (`{ holder, until, token }`), read and written in a storage transaction, and checked inside
 * the very transaction of each fenced append, so no append of a holder lands once another
 * has claimed the run or the lease expired. `until` is on the object's clock, the only one
 * every request to it shares.
 */
import { checkLeaseRequest, leaseLost, runClaimed } from './lease-errors.js';
import type { DurableObjectStorageLike, DurableObjectTransactionLike } from './durable-object.js';
import type { JournalEntry } from './entries.js';
import type { JournalLease, JournalStore, LeaseRequest } from './store.js';

/** Checked inside an append's transaction: throws to refuse it (a lease no longer held). */
export type Fence = (txn: DurableObjectTransactionLike) => Promise<void>;

interface LeaseRecord {
  readonly holder: string;
  readonly until: number;
  readonly token: string;
}

export async function claimDurableLease(
  storage: DurableObjectStorageLike,
  runId: string,
  key: string,
  request: LeaseRequest,
  append: (entries: JournalEntry[], expectedLength: number, fence: Fence) => Promise<void>,
  store: JournalStore,
): Promise<JournalLease> {
  const { holder, ms } = checkLeaseRequest(request);
  // Each claim its own token: an earlier lease object of the same holder is fenced off too.
  const token = crypto.randomUUID();
  await storage.transaction(async (txn) => {
    const held = recordOf(await txn.get(key));
    const now = Date.now();
    if (held !== undefined && held.holder !== holder && held.until > now) throw runClaimed(runId);
    await txn.put({ [key]: { holder, until: now + ms, token } });
  });
  const fence: Fence = async (txn) => {
    const held = recordOf(await txn.get(key));
    if (held?.token !== token || held.until <= Date.now()) throw leaseLost(runId, holder);
  };
  return {
    runId,
    holder,
    load: () => store.load(runId),
    append: (entries, expectedLength) => append(entries, expectedLength, fence),
    renew: () =>
      storage.transaction(async (txn) => {
        await fence(txn);
        await txn.put({ [key]: { holder, until: Date.now() + ms, token } });
      }),
    async release() {
      try {
        await storage.transaction(async (txn) => {
          if (recordOf(await txn.get(key))?.token === token) await txn.put({ [key]: { holder, until: 0, token } });
        });
      } catch {
        // Never rejects: an unreleased lease simply expires.
      }
    },
  };
}

/** A stored record as this store writes it; anything else holds no lease. */
function recordOf(value: unknown): LeaseRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { holder, until, token } = value as Partial<LeaseRecord>;
  return typeof holder === 'string' && typeof until === 'number' && typeof token === 'string' ? { holder, until, token } : undefined;
}
