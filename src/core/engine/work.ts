/**
 * `engine.work()` (spec/runtime.md, "Postgres and workers"): until the signal aborts, claims
 * and resumes every run of the store that has work (work-due.ts), at most `concurrency` at
 * once. What it looks at and when:
 * - every run the store lists, at start and then every `pollMs` (default 1,000), or every
 *   WATCHED_SWEEP_MS as a backstop on a store with `watch` (Postgres), whose wake-ups bring
 *   each run with new work (an append, a released or expired lease) at once;
 * - a run whose approval this engine resolved (`approval:resolved` on the engine);
 * - a suspended run when its earliest deadline passes (a timer per worker, not per run).
 * A run another engine holds settles `run.claimed` and is simply looked at again on its next
 * wake-up; a run this engine already works is skipped; a run whose workflow is not in
 * `workflows` is left alone. A run that this worker resumed and that settled failed, or
 * suspended with work still due, is not resumed again until its journal changes (a failure
 * the journal does not record would otherwise be retried in a loop).
 *
 * When the signal aborts it looks at nothing more, aborts the runs it resumed (each settles
 * `run.aborted` and releases its lease, bounded as any run's release is) and resolves once
 * every one has settled; a store read in flight is let go. No timer or listener outlives it.
 */
import { raceSignal, withDeadline } from '../async.js';
import { ConfigError, RulvarError } from '../errors.js';
import type { JournalStore } from '../journal/store.js';
import { unrefTimer } from '../timers.js';
import { INBOX_MAX_RUNS, INBOX_STORE_MS, listRuns } from './inbox.js';
import { RunLog } from './run-log.js';
import type { RunOutcome, Workflow } from './types.js';
import { workDue } from './work-due.js';

export const DEFAULT_WORK_CONCURRENCY = 8;
export const DEFAULT_POLL_MS = 1_000;
/** How often a store that wakes its watchers is swept anyway (notifications can be lost). */
export const WATCHED_SWEEP_MS = 30_000;
const MAX_CONCURRENCY = 1_000;
const MIN_POLL_MS = 10;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of `engine.work()`: what it may resume, what stops it, how much at once, how often it polls. */
export interface WorkOptions {
  /** The workflows this worker runs; a run of any other workflow is left alone. */
  readonly workflows: readonly Workflow<never, unknown>[];
  /** Stops the worker: nothing more is looked at, the runs it resumed are aborted. */
  readonly signal: AbortSignal;
  /** Runs resumed at once, at most (default 8). */
  readonly concurrency?: number;
  /** How often a store without `watch` is swept for work, in ms (default 1,000). */
  readonly pollMs?: number;
}

/** What the engine lends its worker. */
export interface WorkHost {
  readonly store: JournalStore;
  /** Whether this engine works the run already (a `run` or `resume` of its own). */
  holds(runId: string): boolean;
  /** Resumes the run; its outcome and the journal length the run itself last knew. */
  resume(runId: string, workflow: Workflow<never, unknown>, signal: AbortSignal): Promise<{ outcome: RunOutcome; length: number | undefined }>;
  /** Calls `wake` for each approval the engine resolves; returns the unsubscribe. */
  onResolved(wake: (runId: string) => void): () => void;
}

/** Failures that say nothing about the run itself: another engine has it, or we stopped. */
const PASSING = new Set(['run.claimed', 'run.aborted', 'run.lease_lost', 'journal.conflict', 'journal.unavailable']);

export async function work(host: WorkHost, options: WorkOptions): Promise<void> {
  const { workflows, signal, concurrency, pollMs } = checkOptions(options);
  const { store } = host;
  if (typeof store.runs !== 'function') await listRuns(store, 'engine.work()');
  if (signal.aborted) return;

  const stop = new AbortController();
  const queue = new Set<string>();
  const working = new Set<string>();
  const again = new Set<string>();
  const tasks = new Set<Promise<void>>();
  /** Journal lengths at which a run settled here failed or suspended-with-work: not resumed again until it grows. */
  const seen = new Map<string, number>();
  const ended = new Set<string>();
  const deadlines = new Map<string, number>();
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  let deadlineAt = Infinity;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;
  const watched = typeof store.watch === 'function';
  const gaveUp = () => new RulvarError('run.aborted', 'engine.work() stopped');
  // The signal inside the deadline: a read let go at the abort takes its timer with it.
  const read = <T>(promise: Promise<T>) =>
    withDeadline(raceSignal(promise, stop.signal, gaveUp), INBOX_STORE_MS, () => new RulvarError('journal.unavailable', `the journal store did not answer within ${INBOX_STORE_MS} ms`));

  const wake = (runId: string): void => {
    if (stop.signal.aborted || ended.has(runId)) return;
    if (working.has(runId)) again.add(runId);
    else queue.add(runId);
    pump();
  };

  const pump = (): void => {
    for (const runId of queue) {
      if (stop.signal.aborted || working.size >= concurrency) return;
      queue.delete(runId);
      if (host.holds(runId)) continue;
      working.add(runId);
      const task = take(runId)
        .catch(() => undefined)
        .then(() => {
          working.delete(runId);
          tasks.delete(task);
          if (again.delete(runId)) queue.add(runId);
          pump();
        });
      tasks.add(task);
    }
  };

  async function take(runId: string): Promise<void> {
    const log = await read(RunLog.load(store, runId));
    if (log.end !== undefined) return remember(ended, runId);
    const workflow = log.start === undefined ? undefined : workflows.get(log.start.workflow);
    if (workflow === undefined) return;
    const due = workDue(log);
    if (!due.due) return due.deadline === undefined ? undefined : atDeadline(runId, due.deadline);
    if (due.timedOut !== true && seen.get(runId) === log.size) return;
    const { outcome, length } = await host.resume(runId, workflow, stop.signal);
    if (outcome.status === 'completed') {
      seen.delete(runId);
      return remember(ended, runId);
    }
    if (outcome.status === 'failed' && PASSING.has(outcome.error.code)) return;
    if (length !== undefined) seen.set(runId, length);
    if (seen.size > INBOX_MAX_RUNS) seen.delete(seen.keys().next().value as string);
    if (outcome.status === 'suspended') {
      for (const approval of outcome.approvals) if (approval.deadlineAt !== undefined) atDeadline(runId, Date.parse(approval.deadlineAt) || 0);
    }
  }

  /** Wakes `runId` when `at` passes; one timer for the earliest of all. */
  function atDeadline(runId: string, at: number): void {
    const known = deadlines.get(runId);
    if (known === undefined || at < known) deadlines.set(runId, at);
    if (at < deadlineAt) armDeadlines();
  }

  function armDeadlines(): void {
    clearTimeout(deadlineTimer);
    deadlineAt = Infinity;
    for (const at of deadlines.values()) deadlineAt = Math.min(deadlineAt, at);
    if (!Number.isFinite(deadlineAt) || stop.signal.aborted) return;
    deadlineTimer = unrefTimer(
      setTimeout(() => {
        const now = Date.now();
        for (const [runId, at] of deadlines) {
          if (at > now) continue;
          deadlines.delete(runId);
          wake(runId);
        }
        armDeadlines();
      }, Math.min(Math.max(deadlineAt - Date.now(), 0), MAX_TIMER_MS)),
    );
  }

  async function sweep(): Promise<void> {
    try {
      for (const runId of await read(listRuns(store, 'engine.work()'))) wake(runId);
    } catch {
      // An unreachable store is swept again next time.
    }
    if (!stop.signal.aborted) sweepTimer = unrefTimer(setTimeout(() => void sweep(), watched ? WATCHED_SWEEP_MS : pollMs));
  }

  const stopped = new Promise<void>((resolve) => {
    const onAbort = () => {
      stop.abort(gaveUp());
      clearTimeout(sweepTimer);
      clearTimeout(deadlineTimer);
      unsubscribe();
      queue.clear();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const unsubscribe = host.onResolved(wake);
  if (watched) {
    try {
      store.watch!(wake, stop.signal);
    } catch {
      // A watch that cannot start leaves the sweeps, as on a store without one.
    }
  }
  void sweep();
  await stopped;
  while (tasks.size > 0) await Promise.all([...tasks]);
}

/** Adds to a set kept at most INBOX_MAX_RUNS long (the oldest goes). */
function remember(set: Set<string>, runId: string): void {
  set.add(runId);
  if (set.size > INBOX_MAX_RUNS) set.delete(set.values().next().value as string);
}


function checkOptions(options: WorkOptions): { workflows: Map<string, Workflow<never, unknown>>; signal: AbortSignal; concurrency: number; pollMs: number } {
  if (typeof options !== 'object' || options === null) throw new ConfigError('config.invalid_value', 'engine.work needs options: { workflows, signal, concurrency?, pollMs? }');
  const { signal, concurrency = DEFAULT_WORK_CONCURRENCY, pollMs = DEFAULT_POLL_MS } = options;
  if (typeof signal?.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') throw new ConfigError('config.missing_key', 'engine.work needs signal: an AbortSignal that stops it');
  if (!Array.isArray(options.workflows)) throw new ConfigError('config.missing_key', 'engine.work needs workflows: the workflows it may resume');
  const workflows = new Map<string, Workflow<never, unknown>>();
  for (const workflow of options.workflows as unknown[]) {
    const { name, body } = (workflow ?? {}) as Partial<Workflow<never, unknown>>;
    if (typeof name !== 'string' || typeof body !== 'function') throw new ConfigError('config.invalid_value', 'engine.work: every workflow must be made by defineWorkflow');
    if (workflows.has(name)) throw new ConfigError('config.invalid_value', `engine.work: two workflows are named ${JSON.stringify(name)}`);
    workflows.set(name, workflow as Workflow<never, unknown>);
  }
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new ConfigError('config.invalid_value', `engine.work: concurrency is a whole number from 1 to ${MAX_CONCURRENCY}, not ${String(concurrency)}`);
  }
  if (!Number.isSafeInteger(pollMs) || pollMs < MIN_POLL_MS || pollMs > MAX_TIMER_MS) {
    throw new ConfigError('config.invalid_value', `engine.work: pollMs is a whole number of milliseconds from ${MIN_POLL_MS} to ${MAX_TIMER_MS}, not ${String(pollMs)}`);
  }
  return { workflows, signal, concurrency, pollMs };
}
