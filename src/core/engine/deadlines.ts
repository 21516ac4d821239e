/**
 * Approval deadlines (spec/runtime.md, "Approvals and resume"). An ask journals an absolute
 * `deadlineAt` and the decision to apply when it passes; configuration changed later moves
 * neither. A passed deadline is closed by a `timeout` resolution like any other resolution:
 * journaled, first-closing-wins. Who closes it: a live run's timer while the run executes,
 * and otherwise whoever looks next (`resume`, `pending`, a resolution arriving late, or a
 * Durable Object's alarm calling one of those at `nextDeadline`).
 */
import type { JournalEntry } from '../journal/entries.js';
import { entry } from './entries.js';
import type { RunLog } from './run-log.js';
import { unrefTimer } from '../timers.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;
type ResolutionEntry = Extract<JournalEntry, { type: 'resolution' }>;

/** Longest wait one setTimeout can take; a longer one fires at once in every runtime. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When `approval` times out, in epoch milliseconds; undefined when it has no deadline. */
export function deadlineOf(approval: Approval): number | undefined {
  if (approval.deadlineAt === undefined) return undefined;
  const at = Date.parse(approval.deadlineAt);
  // A journaled deadline that does not parse cannot be waited for: it has passed.
  return Number.isNaN(at) ? 0 : at;
}

/** True when `approval` has a deadline at or before `now`. */
export function hasPassed(approval: Approval, now: number): boolean {
  const at = deadlineOf(approval);
  return at !== undefined && at <= now;
}

/** The timeout resolution entry of `approval`: its journaled decision, deny by default. */
export function timeoutEntry(approval: Approval, now: number): ResolutionEntry {
  return entry({ type: 'resolution', key: approval.key, decision: approval.timeoutDecision ?? 'deny', by: 'timeout', at: new Date(now).toISOString() });
}

/** The earliest deadline among the open approvals of `log`. */
export function nextDeadlineOf(log: RunLog): number | undefined {
  let next: number | undefined;
  for (const approval of log.approvals.values()) {
    if (!log.isOpen(approval.key)) continue;
    const at = deadlineOf(approval);
    if (at !== undefined && (next === undefined || at < next)) next = at;
  }
  return next;
}

/**
 * Journals a timeout for every open approval of `log` whose deadline passed, in one append.
 * Returns the resolutions written (none when nothing was due or another engine's resolutions
 * of the same keys came first; a conflict with anything else rejects, for the caller to retry
 * over a fresh load).
 */
export function closePassedDeadlines(log: RunLog, now = Date.now()): Promise<ResolutionEntry[]> {
  return log.exclusive(async () => {
    for (;;) {
      const due = [...log.approvals.values()].filter((a) => log.isOpen(a.key) && hasPassed(a, now));
      if (due.length === 0) return [];
      const written = due.map((approval) => timeoutEntry(approval, now));
      if (await log.writeUnless(written, () => due.some((a) => log.resolutions.has(a.key)))) return written;
    }
  });
}

/**
 * Calls `fire` at `at` (epoch ms). The timer never keeps a Node process alive on its own, and
 * a wait longer than one timer allows is taken in steps. Returns the function that cancels it.
 */
export function atDeadline(at: number, fire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (wait: number) => {
    timer = unrefTimer(setTimeout(arm, Math.min(Math.max(wait, 0), MAX_TIMER_MS)));
  };
  const arm = () => {
    const wait = at - Date.now();
    if (wait > 0) return schedule(wait);
    timer = undefined;
    fire();
  };
  // Never fires synchronously: the caller finishes what it was doing first.
  schedule(at - Date.now());
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}
