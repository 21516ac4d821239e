/**
 * A run while this engine executes it: its journal, its events, and the accounting that
 * decides when it is suspended. The engine sees only its own operations: agents that are
 * not parked and steps that are running. When none is and approvals wait, the run settles
 * `suspended` (after the current macrotask, so a workflow continuing from a finished branch
 * gets to start its next operation first). While it executes, a parked approval's deadline is
 * a timer of the run: it closes the approval by `timeout` and the agent continues in place.
 */
import { settledWithin } from '../async.js';
import { RulvarError } from '../errors.js';
import { Emitter } from './events.js';
import { entry } from './entries.js';
import type { RunLog } from './run-log.js';
import type { RunLease } from './run-lease.js';
import type { RunTrace } from './tracing.js';
import type { JournalEntry } from '../journal/entries.js';
import { pendingOf, normalizeDecision, type Resolution } from './approvals.js';
import { atDeadline, deadlineOf, hasPassed, timeoutEntry } from './deadlines.js';
import type { ApprovalDecision, PendingApproval, ResolveOptions, RunOutcome } from './types.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;
type Resolved = Extract<JournalEntry, { type: 'resolution' }>;

const noop = (): void => undefined;

/** Longest a settled run's result waits for its lease to be released; past it the lease expires on its own. */
const RELEASE_WAIT_MS = 2_000;

/**
 * Why a settled run's signal aborts. Its stack would always point here, and capturing it was
 * the largest single cost of resuming a finished run (about 6% in a profile), so V8 runtimes
 * (Node, workerd, Chromium) make it with none. Elsewhere there is no limit to lower.
 */
function settledReason(runId: string, status: string): RulvarError {
  const make = () => new RulvarError('run.aborted', `run ${runId} settled ${status}`);
  const errors = Error as { stackTraceLimit?: unknown };
  const limit = errors.stackTraceLimit;
  if (typeof limit !== 'number' || Object.isFrozen(Error)) return make();
  errors.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    errors.stackTraceLimit = limit;
  }
}

export class LiveRun {
  readonly events = new Emitter();
  readonly controller = new AbortController();
  private active = 0;
  private readonly parked = new Map<string, { approval: Approval; wake: (resolution: Resolution) => void; cancelTimer: () => void }>();
  private settled = false;
  private finish!: (outcome: RunOutcome) => void;
  readonly outcome = new Promise<RunOutcome>((resolve) => (this.finish = resolve));
  /** Ordinals of identical spawns, by descriptor, counted in call order. */
  readonly ordinals = new Map<string, number>();
  readonly stepNames = new Set<string>();
  log!: RunLog;
  /** This engine's lease on the run while it works it; none for a completed run's resume. */
  lease: RunLease | undefined;
  /** The run's spans, when the engine has a tracer. */
  trace: RunTrace | undefined;

  constructor(
    readonly runId: string,
    readonly workflow: string,
    /** The engine's fallback when a resolution arrives after this run settled. */
    private readonly resolveSettled: (key: string, decision: ApprovalDecision, options: ResolveOptions) => Promise<boolean>,
  ) {}

  get isSettled(): boolean {
    return this.settled;
  }

  settle(outcome: RunOutcome): void {
    if (this.settled) return;
    this.settled = true;
    for (const { cancelTimer } of this.parked.values()) cancelTimer();
    const releasing = this.lease?.release();
    this.controller.abort(settledReason(this.runId, outcome.status));
    this.events.emit('run:end', { runId: this.runId, outcome });
    this.trace?.settle(outcome);
    // The result waits for the release (bounded), so a process that exits on it leaves the
    // run free for the next engine rather than held for a whole lease.
    if (releasing === undefined) this.finish(outcome);
    else void settledWithin(releasing, RELEASE_WAIT_MS).then(() => this.finish(outcome));
  }

  /**
   * Before an effect (a model request, a tool's execute, a step's body): undefined while the
   * lease is fresh, else the renewal to wait for. A settled run starts no effect.
   */
  beforeEffect(): Promise<void> | undefined {
    if (this.settled) return Promise.reject(this.controller.signal.reason);
    return this.lease?.check();
  }

  /** Brackets an operation the engine counts (an agent not parked, a step). */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
      this.checkSuspended();
    }
  }

  /** Waits for the resolution of `approval`; the agent stops counting as busy meanwhile. */
  async park(approval: Approval): Promise<Resolution> {
    this.active -= 1;
    try {
      return await new Promise<Resolution>((wake) => {
        const at = deadlineOf(approval);
        const cancelTimer = at === undefined ? noop : atDeadline(at, () => void this.timeOut(approval.key).catch(noop));
        this.parked.set(approval.key, { approval, wake, cancelTimer });
        this.checkSuspended();
      });
    } finally {
      this.active += 1;
    }
  }

  async resolve(key: string, decision: ApprovalDecision, options: ResolveOptions): Promise<boolean> {
    if (this.settled) return this.resolveSettled(key, decision, options);
    return this.close(key, (approval, now) => {
      // Too late: the deadline closes it, and this resolution is refused like any later one.
      if (hasPassed(approval, now)) return { written: timeoutEntry(approval, now), answer: false };
      const resolution = normalizeDecision(decision, options);
      return { written: entry({ type: 'resolution', key, ...resolution, at: new Date(now).toISOString() }), answer: true };
    });
  }

  /** Closes a parked approval whose deadline timer fired. */
  private timeOut(key: string): Promise<boolean> {
    return this.close(key, (approval, now) => ({ written: timeoutEntry(approval, now), answer: true }));
  }

  /**
   * Journals the resolution `decide` picks for the open approval `key`, announces it and wakes
   * the agent. Counted as busy until written, so the run cannot settle `suspended` under a
   * resolution about to wake an agent in place.
   */
  private close(key: string, decide: (approval: Approval, now: number) => { written: Resolved; answer: boolean }): Promise<boolean> {
    return this.busy(() =>
      this.log.exclusive(async () => {
        const approval = this.log.approvals.get(key);
        if (approval === undefined || this.log.resolutions.has(key)) return false;
        const { written, answer } = decide(approval, Date.now());
        // Another engine may have resolved this very key since our last write: then it won.
        if (!(await this.log.writeUnless([written], () => this.log.resolutions.has(key)))) return false;
        const { decision, by, reason } = written;
        const resolution: Resolution = { decision, by, ...(reason === undefined ? {} : { reason }) };
        this.events.emit('approval:resolved', { runId: this.runId, key, ...resolution });
        this.wake(key, resolution);
        return answer;
      }),
    );
  }

  /** Continues a parked agent in place (a resolution made here, or another engine's taken in). */
  wake(key: string, resolution: Resolution): void {
    const waiting = this.parked.get(key);
    this.parked.delete(key);
    waiting?.cancelTimer();
    waiting?.wake(resolution);
  }

  private checkSuspended(): void {
    if (this.settled || this.active > 0 || this.parked.size === 0) return;
    setTimeout(() => {
      if (this.settled || this.active > 0 || this.parked.size === 0) return;
      const approvals: PendingApproval[] = [...this.parked.values()].map(({ approval }) => pendingOf(this.runId, approval));
      this.settle({ status: 'suspended', approvals });
    }, 0);
  }
}
