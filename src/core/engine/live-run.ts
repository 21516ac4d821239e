/**
 * A run while this engine executes it: its journal, its events, and the accounting that
 * decides when it is suspended. The engine sees only its own operations: agents that are
 * not parked and steps that are running. When none is and approvals wait, the run settles
 * `suspended` (after the current macrotask, so a workflow continuing from a finished branch
 * gets to start its next operation first).
 */
import { RulvarError } from '../errors.js';
import { Emitter } from './events.js';
import { entry, type RunLog } from './run-log.js';
import type { JournalEntry } from './journal.js';
import { pendingOf, normalizeDecision, type Resolution } from './approvals.js';
import type { ApprovalDecision, PendingApproval, ResolveOptions, RunOutcome } from './types.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;

export class LiveRun {
  readonly events = new Emitter();
  readonly controller = new AbortController();
  private active = 0;
  private readonly parked = new Map<string, { approval: Approval; wake: (resolution: Resolution) => void }>();
  private settled = false;
  private finish!: (outcome: RunOutcome) => void;
  readonly outcome = new Promise<RunOutcome>((resolve) => (this.finish = resolve));
  /** Ordinals of identical spawns, by descriptor, counted in call order. */
  readonly ordinals = new Map<string, number>();
  readonly stepNames = new Set<string>();
  log!: RunLog;

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
    this.controller.abort(new RulvarError('run.aborted', `run ${this.runId} settled ${outcome.status}`));
    this.events.emit('run:end', { runId: this.runId, outcome });
    this.finish(outcome);
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
        this.parked.set(approval.key, { approval, wake });
        this.checkSuspended();
      });
    } finally {
      this.active += 1;
    }
  }

  async resolve(key: string, decision: ApprovalDecision, options: ResolveOptions): Promise<boolean> {
    if (this.settled) return this.resolveSettled(key, decision, options);
    // Counted as busy until written, so the run cannot settle `suspended` under a resolution
    // that is about to wake an agent in place.
    return this.busy(() =>
      this.log.exclusive(async () => {
        const approval = this.log.approvals.get(key);
        if (approval === undefined || this.log.resolutions.has(key)) return false;
        const resolution = normalizeDecision(decision, options);
        const written = entry({ type: 'resolution', key, ...resolution, at: new Date().toISOString() });
        // Another engine may have resolved this very key since our last write: then it won.
        if (!(await this.log.writeUnless([written], () => this.log.resolutions.has(key)))) return false;
        this.events.emit('approval:resolved', { runId: this.runId, key, ...resolution });
        this.wake(key, resolution);
        return true;
      }),
    );
  }

  /** Continues a parked agent in place (a resolution made here, or another engine's taken in). */
  wake(key: string, resolution: Resolution): void {
    const waiting = this.parked.get(key);
    this.parked.delete(key);
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
