/**
 * The approvals inbox: `engine.pending()` with no run id (spec/runtime.md, "Postgres and
 * workers"). Every open approval the store holds, across runs, ordered by run in the order the
 * store lists its runs (memory, file and Postgres list them by run id, in code-unit or byte
 * order), and within a run in the order they were asked. Passed deadlines are closed by their
 * timeout first, as `pending(runId)` does.
 *
 * Bounded, whatever the store holds: at most INBOX_MAX_RUNS runs are looked at (the first the
 * store lists), at most INBOX_MAX_APPROVALS approvals are returned (the first in that order: an
 * inbox pages by resolving), runs are loaded INBOX_LOADS_AT_ONCE at a time so that only that
 * many journals are in memory at once, and the listing and every load must answer within
 * INBOX_STORE_MS or the call rejects `journal.unavailable`.
 */
import { withDeadline } from '../async.js';
import { RulvarError } from '../errors.js';
import type { JournalStore } from '../journal/store.js';
import { openApprovals, withDeadlinesApplied, type Resolution } from './approvals.js';
import { nextDeadlineOf } from './deadlines.js';
import { RunLog } from './run-log.js';
import type { PendingApproval } from './types.js';

export const INBOX_MAX_RUNS = 100_000;
export const INBOX_MAX_APPROVALS = 1_000;
export const INBOX_LOADS_AT_ONCE = 8;
export const INBOX_STORE_MS = 30_000;

/** Called for each approval the inbox closed by its deadline. */
export type OnClosed = (runId: string, resolution: Resolution & { readonly key: string }) => void;

/**
 * The run ids of `store`, deduplicated, in its order, at most `max` of them. A store without
 * `runs` (a Durable Object per run) refuses with `journal.cannot_list`; a listing that is not
 * a list of strings is `journal.corrupt`.
 */
export async function listRuns(store: JournalStore, what: string, max = INBOX_MAX_RUNS, ms = INBOX_STORE_MS): Promise<string[]> {
  if (typeof store.runs !== 'function') {
    throw new RulvarError('journal.cannot_list', `${what} needs a journal store that lists its runs (memory, file, Postgres); this store has no runs()`);
  }
  const listed: unknown = await bounded(Promise.resolve().then(() => store.runs!()), ms, 'listing its runs');
  if (!Array.isArray(listed)) throw new RulvarError('journal.corrupt', 'the journal store listed its runs as something that is not a list');
  const seen = new Set<string>();
  for (let i = 0; i < listed.length && seen.size < max; i += 1) {
    const runId: unknown = listed[i];
    if (typeof runId !== 'string') throw new RulvarError('journal.corrupt', `the journal store listed a run id that is not a string (at ${i})`);
    seen.add(runId);
  }
  return [...seen];
}

export interface InboxBounds {
  readonly maxRuns?: number;
  readonly maxApprovals?: number;
  readonly storeMs?: number;
}

/** Every open approval of the store, in the order above, within the bounds above. */
export async function inbox(store: JournalStore, onClosed: OnClosed, bounds: InboxBounds = {}): Promise<PendingApproval[]> {
  const { maxRuns = INBOX_MAX_RUNS, maxApprovals = INBOX_MAX_APPROVALS, storeMs = INBOX_STORE_MS } = bounds;
  const runIds = await listRuns(store, 'engine.pending() with no run id', maxRuns, storeMs);
  const found: PendingApproval[] = [];
  for (let at = 0; at < runIds.length && found.length < maxApprovals; at += INBOX_LOADS_AT_ONCE) {
    const window = runIds.slice(at, at + INBOX_LOADS_AT_ONCE);
    const lists = await Promise.all(window.map((runId) => openOf(store, runId, onClosed, storeMs)));
    for (const list of lists) for (const approval of list) if (found.length < maxApprovals) found.push(approval);
  }
  return found;
}

/** The open approvals of one run, its passed deadlines closed first. */
async function openOf(store: JournalStore, runId: string, onClosed: OnClosed, ms: number): Promise<PendingApproval[]> {
  const log = await bounded(RunLog.load(store, runId), ms, `loading run ${JSON.stringify(runId)}`);
  // Gone since it was listed, or never more than lease entries: nothing to ask about.
  if (log.isEmpty || log.end !== undefined) return [];
  const next = nextDeadlineOf(log);
  if (next === undefined || next > Date.now()) return openApprovals(log);
  const applied = await bounded(withDeadlinesApplied(store, runId), ms, `closing the passed deadlines of run ${JSON.stringify(runId)}`);
  for (const resolution of applied.closed) onClosed(runId, resolution);
  return openApprovals(applied.log);
}

function bounded<T>(promise: Promise<T>, ms: number, doing: string): Promise<T> {
  return withDeadline(promise, ms, () => new RulvarError('journal.unavailable', `the journal store did not answer within ${ms} ms (${doing})`));
}
