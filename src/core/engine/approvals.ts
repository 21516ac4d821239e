/**
 * Approvals: what a decision means, what a pending approval shows, and resolving one on a run
 * no handle of this engine is executing. Anything but an explicit allow is a deny, and never a
 * throw; the first resolution journaled wins and every later one returns false.
 */
import { RulvarError, cutText } from '../errors.js';
import { closePassedDeadlines, hasPassed, timeoutEntry } from './deadlines.js';
import type { JournalEntry, ResolvedBy } from '../journal/entries.js';
import type { JournalStore } from '../journal/store.js';
import { entry } from './entries.js';
import { RunLog } from './run-log.js';
import type { ApprovalDecision, PendingApproval, ResolveOptions } from './types.js';
import { isRecord } from '../records.js';

export interface Resolution {
  readonly decision: 'allow' | 'deny';
  readonly by: ResolvedBy;
  readonly reason?: string;
  readonly decider?: string;
}

/** Longest host-written reason kept; a model reads it, so it informs rather than floods. */
const MAX_REASON_CHARS = 2_000;
/** A decider is an id (a token's digest, a link's id), not prose. */
const MAX_DECIDER_CHARS = 200;

export function normalizeDecision(decision: ApprovalDecision | unknown, options: ResolveOptions | undefined): Resolution {
  const allow = decision === 'allow' || (isRecord(decision) && decision.decision === 'allow');
  const ownReason = isRecord(decision) && typeof decision.reason === 'string' ? decision.reason : undefined;
  const reason = ownReason ?? (typeof options?.reason === 'string' ? options.reason : undefined);
  return {
    decision: allow ? 'allow' : 'deny',
    by: options?.by === 'operator' ? 'operator' : 'external',
    ...(reason === undefined ? {} : { reason: cutText(reason, MAX_REASON_CHARS) }),
    ...(typeof options?.decider === 'string' ? { decider: cutText(options.decider, MAX_DECIDER_CHARS) } : {}),
  };
}

export function pendingOf(runId: string, approval: Extract<JournalEntry, { type: 'approval' }>): PendingApproval {
  return {
    key: approval.key,
    runId,
    toolName: approval.toolName,
    input: approval.input,
    audit: approval.audit,
    ...(approval.deadlineAt === undefined ? {} : { deadlineAt: approval.deadlineAt }),
  };
}

/** The open approvals of a journal (RunLog.isOpen), in the order they were asked. */
export function openApprovals(log: RunLog): PendingApproval[] {
  return [...log.approvals.values()].filter((a) => log.isOpen(a.key)).map((a) => pendingOf(log.runId, a));
}

export async function loadExisting(store: JournalStore, runId: string): Promise<RunLog> {
  const log = await RunLog.load(store, runId);
  if (log.isEmpty) throw unknownRun(runId);
  return log;
}

export function unknownRun(runId: string): RulvarError {
  return new RulvarError('journal.unknown_run', `there is no journaled run ${JSON.stringify(runId)}`);
}

/** Attempts before giving up on a run whose journal keeps moving under us. */
const CONFLICT_RETRIES = 8;

/** What resolving an approval did: the answer for the caller, and the resolution journaled (if any). */
export interface Settlement {
  readonly answer: boolean;
  readonly written?: Resolution;
}

/**
 * Resolves an approval of a run this engine is not executing: load, check, append. An
 * approval whose deadline passed is closed by its timeout instead, and the answer is false. A
 * conflict means someone else wrote first (maybe a resolution of the same key), so it loads
 * again and re-checks rather than overwriting anything.
 */
export async function resolveSettled(store: JournalStore, runId: string, key: string, decision: ApprovalDecision, options: ResolveOptions | undefined): Promise<Settlement> {
  return retryOnConflict(async () => {
    const log = await loadExisting(store, runId);
    const approval = log.approvals.get(key);
    if (approval === undefined || !log.isOpen(key)) return { answer: false };
    const now = Date.now();
    if (hasPassed(approval, now)) {
      const timeout = timeoutEntry(approval, now);
      await log.write(timeout);
      return { answer: false, written: resolutionOf(timeout) };
    }
    const resolution = normalizeDecision(decision, options);
    await log.write(entry({ type: 'resolution', key, ...resolution, at: new Date(now).toISOString() }));
    return { answer: true, written: resolution };
  });
}

/** Loads the run and journals a timeout for each open approval whose deadline passed. */
export async function withDeadlinesApplied(store: JournalStore, runId: string): Promise<{ log: RunLog; closed: (Resolution & { readonly key: string })[] }> {
  return retryOnConflict(async () => {
    const log = await loadExisting(store, runId);
    const closed = await closePassedDeadlines(log);
    return { log, closed: closed.map(resolutionOf) };
  });
}

export function resolutionOf(written: Extract<JournalEntry, { type: 'resolution' }>): Resolution & { readonly key: string } {
  const { key, decision, by, reason } = written;
  return { key, decision, by, ...(reason === undefined ? {} : { reason }) };
}

async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(RulvarError.is(error) && error.code === 'journal.conflict') || tries >= CONFLICT_RETRIES) throw error;
    }
  }
}
