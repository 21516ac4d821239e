/**
 * `createEngine`: runs workflows over a journal. `run` and `resume` return their handle at
 * once and report every refusal through it; both execute the workflow the same way, since a
 * fresh run is a resume of an empty journal, and both claim the run's lease before anything
 * that could act (run-lease.ts). Resolutions go to the live run when this engine is executing
 * it, otherwise straight to the journal.
 */
import { ConfigError, RulvarError, describeCause } from '../errors.js';
import { canonicalJson } from '../tools/canonical-json.js';
import { loadExisting, openApprovals, resolutionOf, resolveSettled, unknownRun, withDeadlinesApplied } from './approvals.js';
import { closePassedDeadlines, nextDeadlineOf } from './deadlines.js';
import { Emitter } from './events.js';
import { journalable } from '../journal/json-safe.js';
import { LiveRun } from './live-run.js';
import { memoryJournal } from '../journal/memory.js';
import type { ModelAdapter } from '../model/types.js';
import { entry } from './entries.js';
import { RunLog } from './run-log.js';
import type { ApprovalDecision, Engine, EngineOptions, ResolveOptions, ResumeOptions, RunHandle, RunOutcome, Workflow } from './types.js';
import { createContext } from './workflow.js';
import { claimRun, DEFAULT_LEASE_MS, RunLease } from './run-lease.js';
import { MAX_LEASE_MS, runClaimed } from '../journal/lease-errors.js';
import { inbox } from './inbox.js';
import { tracingOf } from './trace-setup.js';
import { work, type WorkHost } from './work.js';

export function createEngine(options: EngineOptions): Engine {
  const adapters = indexAdapters(options?.adapters);
  const store = options.journal ?? memoryJournal();
  const leaseMs = leaseMsOf(options.leaseMs);
  const traceRun = tracingOf(options, adapters);
  // One id per engine: every run it works is claimed under it.
  const holder = `rulvar-engine-${crypto.randomUUID()}`;
  const engineEvents = new Emitter();
  const live = new Map<string, LiveRun>();
  /** The runs this engine claimed and has not settled: one handle each. */
  const holding = new Map<string, LiveRun>();
  // One engine resolving one settled run does so in order, so its own calls never conflict.
  const resolving = new Map<string, Promise<unknown>>();

  const resolveOffline = (runId: string, key: string, decision: ApprovalDecision, opts: ResolveOptions | undefined): Promise<boolean> => {
    const previous = resolving.get(runId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const { answer, written } = await resolveSettled(store, runId, key, decision, opts);
      if (written !== undefined) engineEvents.emit('approval:resolved', { runId, key, ...written });
      return answer;
    });
    const tail = next.catch(() => undefined);
    resolving.set(runId, tail);
    void tail.then(() => resolving.get(runId) === tail && resolving.delete(runId));
    return next;
  };

  const start = <A, T>(workflow: Workflow<A, T>, runId: string, signal: AbortSignal | undefined, open: Open, prepare: Prepare<A>, resumed: boolean): RunHandle<T> => {
    const run = new LiveRun(runId, workflow?.name, (key, decision, opts) => resolveOffline(runId, key, decision, opts));
    run.trace = traceRun?.(runId, String(workflow?.name), resumed);
    const follow = () => run.settle({ status: 'failed', error: new RulvarError('run.aborted', `run ${runId} was aborted`) });
    if (signal?.aborted) follow();
    else signal?.addEventListener('abort', follow, { once: true });
    live.set(runId, run);
    void run.outcome.then(() => {
      signal?.removeEventListener('abort', follow);
      if (live.get(runId) === run) live.delete(runId);
    });
    // Aborted before it started: nothing is loaded, nothing written.
    if (run.isSettled) return handleOf(run);
    void execute(run, workflow, open, prepare).then(
      (outcome) => run.settle(outcome),
      (error: unknown) => run.settle({ status: 'failed', error: asRulvarError(error) }),
    );
    return handleOf(run);
  };

  const handleOf = <T>(run: LiveRun): RunHandle<T> => ({
    runId: run.runId,
    result: run.outcome as Promise<RunOutcome<T>>,
    on: (event, listener) => run.events.on(event, listener),
    resolveExternal: (key, decision, opts) => run.resolve(key, decision, opts ?? {}),
  });

  /**
   * Claims the run, then reads it through the lease. A run settled meanwhile (aborted) gives
   * the lease straight back. Unless told to claim at once, it first reads the journal without
   * claiming, and a journal with nothing to work (a completed or unknown run; for `run`, any
   * journal at all) is answered from that read alone: nothing is claimed or written.
   */
  async function open(run: LiveRun, how: Open): Promise<RunLog> {
    if (how !== 'claim') {
      const seen = await RunLog.load(store, run.runId);
      if (how(seen)) return seen;
    }
    // This engine already works the run: a second handle of it would be a second writer
    // under the same holder, which the store cannot tell apart.
    const working = holding.get(run.runId);
    if (working !== undefined && working !== run) throw runClaimed(run.runId);
    holding.set(run.runId, run);
    void run.outcome.then(() => holding.get(run.runId) === run && holding.delete(run.runId));
    const claimedAt = Date.now();
    const held = await claimRun(store, run.runId, holder, leaseMs);
    const lease = new RunLease(held, leaseMs, claimedAt, (error) => run.settle({ status: 'failed', error }));
    run.lease = lease;
    if (run.isSettled) {
      await lease.release();
      throw run.controller.signal.reason;
    }
    return RunLog.loadLeased(lease.lease);
  }

  async function execute<A, T>(run: LiveRun, workflow: Workflow<A, T>, how: Open, prepare: Prepare<A>): Promise<RunOutcome> {
    if (typeof workflow?.body !== 'function' || typeof workflow.name !== 'string') {
      throw new ConfigError('config.invalid_value', 'run and resume need a workflow made by defineWorkflow');
    }
    run.log = await open(run, how);
    run.trace?.begin(run.log.start);
    run.log.onForeignResolution = (resolution) => run.wake(resolution.key, resolution);
    const prepared = await prepare(run.log, run);
    // A completed run's resume: its journaled outcome, nothing run.
    if (!('args' in prepared)) return prepared;
    const value = journalable(await workflow.body(createContext(run, options, adapters), prepared.args), `the value of workflow ${JSON.stringify(workflow.name)}`);
    if (!run.isSettled) await run.log.write(entry({ type: 'run:end', value }));
    return { status: 'completed', value };
  }

  /**
   * `resume`. A worker that has just read the journal (engine.work) claims at once: its read
   * showed work, so the read `resume` makes before claiming would only repeat it.
   */
  const resumeRun = <A, T>(runId: string, workflow: Workflow<A, T>, opts: ResumeOptions, claimAtOnce: boolean): RunHandle<T> => {
    /** The journal's run:start, unless this resume is refused. */
    const check = (log: RunLog) => {
      const started = log.start;
      if (started === undefined) throw unknownRun(runId);
      if (started.workflow !== workflow.name) {
        throw new RulvarError('journal.workflow_mismatch', `run ${JSON.stringify(runId)} was started by workflow ${JSON.stringify(started.workflow)}, not ${JSON.stringify(workflow.name)}`);
      }
      if ('args' in opts && canonicalJson(journalable(opts.args, 'the args of a run')) !== canonicalJson(started.args)) {
        throw new RulvarError('journal.args_mismatch', `run ${JSON.stringify(runId)} was started with other args; resume with the journaled ones (or none)`);
      }
      return started;
    };
    // Refusals and a completed run are answered from the journal as read, with no claim.
    const how: Open = claimAtOnce && typeof store.claim === 'function' ? 'claim' : (seen) => (check(seen), seen.end !== undefined);
    return start(workflow, runId, opts.signal, how, async (log, run) => {
      const started = check(log);
      if (log.end !== undefined) return { status: 'completed', value: log.end.value };
      // Deadlines that passed while nothing ran close first, so the replay applies them.
      for (const written of await closePassedDeadlines(log)) run.events.emit('approval:resolved', { runId, ...resolutionOf(written) });
      return { args: started.args as never };
    }, true);
  };

  const engine: Engine = {
    run(workflow, args, opts = {}) {
      const runId = opts.runId ?? crypto.randomUUID();
      // A store without `claim` keeps its lease in the journal: look before writing one there.
      return start(workflow, runId, opts.signal, typeof store.claim === 'function' ? 'claim' : (seen) => !seen.isEmpty, async (log, run) => {
        if (!log.isEmpty) throw new RulvarError('journal.run_exists', `run ${JSON.stringify(runId)} already has a journal; resume it instead`);
        const journaledArgs = journalable(args, 'the args of a run');
        const incarnation = crypto.randomUUID();
        await log.write(entry({ type: 'run:start', workflow: workflow.name, args: journaledArgs, at: new Date().toISOString(), incarnation, ...run.trace?.journaled() }));
        return { args: journaledArgs };
      }, false);
    },
    resume: (runId, workflow, opts = {}) => resumeRun(runId, workflow, opts, false),
    async resolveExternal(runId, key, decision, opts) {
      // A live run resolves in place, or hands a settled one back to resolveOffline itself.
      const run = live.get(runId);
      // A live run still loading its journal has none to write through: the store takes the
      // resolution, and the run meets it as it would another engine's.
      if (run === undefined || (run.log as RunLog | undefined) === undefined) return resolveOffline(runId, key, decision, opts);
      return run.resolve(key, decision, opts ?? {});
    },
    async pending(runId?: string) {
      if (runId === undefined) return inbox(store, (id, resolution) => engineEvents.emit('approval:resolved', { runId: id, ...resolution }));
      const { log, closed } = await withDeadlinesApplied(store, runId);
      for (const resolution of closed) engineEvents.emit('approval:resolved', { runId, ...resolution });
      return openApprovals(log);
    },
    async nextDeadline(runId) {
      return nextDeadlineOf(await loadExisting(store, runId));
    },
    work: (workOptions) => work(workHost, workOptions),
    on: (event, listener) => engineEvents.on(event, listener),
  };
  const workHost: WorkHost = {
    store,
    holds: (runId) => holding.has(runId),
    async resume(runId, workflow, signal) {
      const handle = resumeRun(runId, workflow, { signal }, true);
      const run = live.get(runId);
      const outcome = await handle.result;
      return { outcome, length: run?.log?.size };
    },
    onResolved: (wake) => engineEvents.on('approval:resolved', (event) => wake(event.runId)),
  };
  return engine;
}

/** Checks a run or resume against its journal; the workflow's args to go on, or the outcome already reached. */
type Prepare<A> = (log: RunLog, run: LiveRun) => Promise<{ args: A } | RunOutcome>;

/** How a run is opened: claimed at once, or read first, answered from that read when it says so. */
type Open = 'claim' | ((seen: RunLog) => boolean);

function leaseMsOf(value: unknown): number {
  if (value === undefined) return DEFAULT_LEASE_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 3 || value > MAX_LEASE_MS) {
    throw new ConfigError('config.invalid_value', `leaseMs must be a whole number of milliseconds from 3 to ${MAX_LEASE_MS}, not ${String(value)}`);
  }
  return value;
}

function asRulvarError(error: unknown): RulvarError {
  let ours = false;
  try {
    ours = RulvarError.is(error);
  } catch {
    // A thrown proxy whose traps throw is no error of ours; it must still settle the run.
  }
  if (ours) return error as RulvarError;
  return new RulvarError('workflow.failed', `the workflow failed: ${describeCause(error)}`, { cause: error });
}

function indexAdapters(adapters: readonly ModelAdapter[] | undefined): Map<string, ModelAdapter> {
  if (!Array.isArray(adapters)) throw new ConfigError('config.missing_key', 'createEngine needs adapters: a list of model adapters');
  const byId = new Map<string, ModelAdapter>();
  for (const adapter of adapters) {
    if (typeof adapter?.id !== 'string' || typeof adapter.generate !== 'function') {
      throw new ConfigError('config.invalid_value', 'every model adapter needs a string id and a generate function');
    }
    if (byId.has(adapter.id)) throw new ConfigError('config.invalid_value', `two model adapters have id ${JSON.stringify(adapter.id)}`);
    byId.set(adapter.id, adapter);
  }
  return byId;
}
