/**
 * The contract every journal store keeps (spec/runtime.md, "Journals"): memory, file, Durable
 * Object and Postgres stores implement it, and test/core/journal-contract.suite.ts holds each
 * to it. Stores treat entries as opaque JSON objects; what they mean is entries.ts's business.
 */
import type { JournalEntry } from './entries.js';

/**
 * Entries travel as frozen plain JSON: the engine appends entries that are frozen all the way
 * down, so a store may keep them by reference (the memory store does) or serialize them. A
 * store's `load` returns either fresh entries (parsed: the engine freezes its own copy) or
 * entries frozen all the way down, which the engine keeps as they are: a frozen entry is
 * never checked deeper than its own members.
 */
export interface JournalStore {
  /** Every entry of the run in order; `[]` for a run never written. */
  load(runId: string): Promise<JournalEntry[]>;
  /**
   * Appends `entries` atomically (all or none survive a crash), only if the run holds exactly
   * `expectedLength` entries; otherwise rejects with RulvarError `journal.conflict`. Every
   * store accepts any batch the engine can produce, whatever its size.
   */
  append(runId: string, entries: JournalEntry[], expectedLength: number): Promise<void>;
  /**
   * Optional: the store's own lease primitive (spec/runtime.md, "One writer per run: leases").
   * Resolves with the run's lease for `request.holder`, or rejects with RulvarError
   * `run.claimed` while another holder's lease on the run is live. A store without it still
   * gets correct leases: the engine keeps them as `lease` journal entries (entry-lease.ts).
   */
  claim?(runId: string, request: LeaseRequest): Promise<JournalLease>;
  /**
   * Optional: the id of every run the store holds, in a stable order (the approvals inbox of
   * `engine.pending()` and the sweep of `engine.work()`). A store that cannot list its runs
   * (a Durable Object per run) leaves it out, and those two refuse typed.
   */
  runs?(): Promise<string[]>;
  /**
   * Optional: calls `wake(runId)` whenever a run may have new work (an append, a released or
   * expired lease), until `signal` aborts. `engine.work()` polls a store without it.
   */
  watch?(wake: (runId: string) => void, signal: AbortSignal): void;
}

/** What an engine asks for when it claims a run. */
export interface LeaseRequest {
  /** Who claims: one engine's random id, the same for every run it works. */
  readonly holder: string;
  /** How long the lease lasts unless renewed; a holder that died loses it this long after its last renewal. */
  readonly ms: number;
}

/**
 * One engine's hold on one run. Every write of the holder goes through it, fenced: once the
 * lease may have passed to another holder (expired unrenewed, or broken), `append` and
 * `renew` reject with RulvarError `run.lease_lost` and write nothing. Other writers (a
 * `resolveExternal`, which takes no lease) still append through the store; the holder then
 * meets `journal.conflict` as before and takes their resolutions in.
 */
export interface JournalLease {
  readonly runId: string;
  readonly holder: string;
  /** Every entry of the run, read under the lease. */
  load(): Promise<JournalEntry[]>;
  /** `JournalStore.append`, fenced by the lease. */
  append(entries: JournalEntry[], expectedLength: number): Promise<void>;
  /** Extends the lease to `ms` from now; rejects `run.lease_lost` when it was lost meanwhile. */
  renew(): Promise<void>;
  /** Ends the lease (idempotent, never rejects): the run is free for any engine at once. */
  release(): Promise<void>;
}

/** Options of `fileJournal` (the Node entry; the edge entry refuses it with `journal.unavailable`). */
export interface FileJournalOptions {
  /** The directory holding one JSONL file per run; created when missing. */
  readonly dir: string;
}

/**
 * Where a store that can append without waiting offers to (the memory store). The engine
 * writes twice per model turn; when nothing else is queued, an append that is done when it
 * returns spares each write its promises. A symbol, so it is no part of the public contract.
 */
export const APPEND_NOW = Symbol('rulvar.appendNow');

export interface AppendsNow {
  /** `append`, done when it returns; throws what `append` would reject with. */
  [APPEND_NOW](runId: string, entries: readonly JournalEntry[], expectedLength: number): void;
}

export function appendsNow<T extends object>(store: T): store is T & AppendsNow {
  return typeof (store as Partial<AppendsNow>)[APPEND_NOW] === 'function';
}
