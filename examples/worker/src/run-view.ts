/**
 * What the routes answer about a run. The journal is the truth (approvals, resolutions, the
 * value); next to it the object keeps one small record: how the last piece of work on the run
 * settled, since a failed run writes no journal entry that says so. Reading a view writes
 * nothing: a deadline that has passed is closed by the object's alarm, not by a GET.
 */
import type { JournalEntry, RunOutcome } from '@rulvar/core';

export type RunStatus = 'running' | 'suspended' | 'completed' | 'failed';

/** Stored under RECORD_KEY in the run's object. */
export interface RunRecord {
  readonly runId: string;
  readonly status: RunStatus;
  readonly error?: { readonly code: string; readonly message: string };
}

export const RECORD_KEY = 'run';

export interface PendingView {
  readonly key: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly deadlineAt?: string;
}

export interface RunView {
  readonly runId: string;
  readonly status: RunStatus;
  /** Approvals no resolution has closed yet, in the order they were asked. */
  readonly pending: PendingView[];
  readonly value?: unknown;
  readonly error?: { readonly code: string; readonly message: string };
}

type Approval = Extract<JournalEntry, { type: 'approval' }>;
type Resolution = Extract<JournalEntry, { type: 'resolution' }>;

export function recordOf(runId: string, outcome: RunOutcome): RunRecord {
  if (outcome.status !== 'failed') return { runId, status: outcome.status };
  return { runId, status: 'failed', error: { code: outcome.error.code, message: outcome.error.message } };
}

export function viewOf(record: RunRecord, entries: readonly JournalEntry[]): RunView {
  const resolved = new Set(entries.filter(isResolution).map((r) => r.key));
  const end = entries.find((e) => e.type === 'run:end');
  // An ended run waits for nothing: an ask its agent left behind (re-keyed when the remote
  // server's tools changed) closed with it, as the engine's own pending() says.
  const pending =
    end !== undefined
      ? []
      : entries
          .filter(isApproval)
          .filter((a) => !resolved.has(a.key))
          .map(({ key, toolName, input, deadlineAt }) => ({ key, toolName, input, ...(deadlineAt === undefined ? {} : { deadlineAt }) }));
  return {
    runId: record.runId,
    status: record.status,
    pending,
    ...(end === undefined ? {} : { value: end.value }),
    ...(record.error === undefined ? {} : { error: record.error }),
  };
}

function isApproval(entry: JournalEntry): entry is Approval {
  return entry.type === 'approval';
}

function isResolution(entry: JournalEntry): entry is Resolution {
  return entry.type === 'resolution';
}
