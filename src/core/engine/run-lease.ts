/**
 * The lease a live run holds on its journal (spec/runtime.md, "One writer per run: leases").
 * Claimed before anything that could act, renewed on a timer every third of `leaseMs`, and
 * checked before each effect (a model request, a tool's execute, a step's body): when the
 * last successful renewal was sent more than a third of the lease ago, the effect waits for
 * a renewal first. Measured from when the request was sent, so this engine's view of the
 * lease always ends before the store's. Whoever learns the lease is lost (a renewal or a
 * fenced write answering `run.lease_lost`) hands that to `onLost`, which ends the run.
 */
import { RulvarError } from '../errors.js';
import { entryLease } from '../journal/entry-lease.js';
import { APPEND_NOW, appendsNow, type AppendsNow, type JournalLease, type JournalStore } from '../journal/store.js';
import { unrefTimer } from '../timers.js';

export const DEFAULT_LEASE_MS = 30_000;

/** The store's own `claim`, or the entry lease any store can keep. */
export function claimRun(store: JournalStore, runId: string, holder: string, ms: number): Promise<JournalLease> {
  return typeof store.claim === 'function' ? store.claim(runId, { holder, ms }) : entryLease(store, runId, { holder, ms });
}

const noop = (): void => undefined;

export class RunLease {
  /** The lease as the run's journal writes through it: a `run.lease_lost` from any write reaches `onLost`. */
  readonly lease: JournalLease;
  private renewedAt: number;
  private renewing: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private released = false;

  constructor(
    held: JournalLease,
    private readonly ms: number,
    /** When the claim that gave `held` was sent. */
    claimedAt: number,
    private readonly onLost: (error: RulvarError) => void,
  ) {
    this.renewedAt = claimedAt;
    this.lease = this.fenced(held);
    // A lease alone never keeps a process alive.
    this.timer = unrefTimer(setInterval(() => void this.renew().catch(noop), Math.max(1, Math.floor(ms / 3))));
  }

  /**
   * Before an effect: nothing to wait for while the lease is fresh (most effects), else the
   * renewal to wait for; rejects with what the renewal met.
   */
  check(): Promise<void> | undefined {
    if (this.released) return Promise.reject(new RulvarError('run.lease_lost', `run ${JSON.stringify(this.lease.runId)} is no longer held by this engine`));
    return Date.now() - this.renewedAt <= this.ms / 3 ? undefined : this.renew();
  }

  /** Ends the lease when the run settles; never rejects. */
  release(): Promise<void> {
    if (this.released) return Promise.resolve();
    this.released = true;
    clearInterval(this.timer);
    this.timer = undefined;
    // Not after a renewal in flight, which may hang with its store: each store orders its own
    // lease's renewal and release (a renewal landing later finds the lease released).
    return Promise.resolve()
      .then(() => this.lease.release())
      .catch(noop);
  }

  /** One renewal at a time; the next check waits for the one in flight. */
  private renew(): Promise<void> {
    if (this.released) return Promise.resolve();
    if (this.renewing !== undefined) return this.renewing;
    const sentAt = Date.now();
    const renewing = this.lease.renew().then(
      () => {
        this.renewedAt = Math.max(this.renewedAt, sentAt);
      },
      (error: unknown) => {
        this.lost(error);
        throw error;
      },
    );
    this.renewing = renewing;
    void renewing.then(
      () => (this.renewing = undefined),
      () => (this.renewing = undefined),
    );
    return renewing;
  }

  private lost(error: unknown): void {
    if (RulvarError.is(error) && error.code === 'run.lease_lost') this.onLost(error);
  }

  private fenced(held: JournalLease): JournalLease {
    const lost = (error: unknown): never => {
      this.lost(error);
      throw error;
    };
    const lease: JournalLease = {
      runId: held.runId,
      holder: held.holder,
      load: () => held.load(),
      append: (entries, expectedLength) => Promise.resolve(held.append(entries, expectedLength)).catch(lost),
      renew: () => held.renew(),
      release: () => held.release(),
    };
    if (!appendsNow(held)) return lease;
    const now: AppendsNow = {
      [APPEND_NOW]: (runId, entries, expectedLength) => {
        try {
          held[APPEND_NOW](runId, entries, expectedLength);
        } catch (error) {
          lost(error);
        }
      },
    };
    return Object.assign(lease, now);
  }
}
