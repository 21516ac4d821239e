/**
 * `createEngine`: runs workflows over a journal. `run` and `resume` return their handle at
 * once and report every refusal through it; both execute the workflow the same way, since a
 * fresh run is a resume of an empty journal. Resolutions go to the live run when this engine
 * is executing it, otherwise straight to the journal.
 */
import { ConfigError, RulvarError, describeCause } from '../errors.js';
import { canonicalJson } from '../tools/canonical-json.js';
import { loadExisting, openApprovals, resolutionOf, resolveSettled, unknownRun, withDeadlinesApplied } from './approvals.js';
import { closePassedDeadlines, nextDeadlineOf } from './deadlines.js';
import { Emitter } from './events.js';
import { journalable } from './json-safe.js';
import { LiveRun } from './live-run.js';
import { memoryJournal } from './memory-journal.js';
import type { ModelAdapter } from './model.js';
import { entry } from './entries.js';
import { RunLog } from './run-log.js';
import type { ApprovalDecision, Engine, EngineOptions, ResolveOptions, RunHandle, RunOutcome, Workflow } from './types.js';
import { createContext } from './workflow.js';

export function createEngine(options: EngineOptions): Engine {
  const adapters = indexAdapters(options?.adapters);
  const store = options.journal ?? memoryJournal();
  const engineEvents = new Emitter();
  const live = new Map<string, LiveRun>();
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

  const start = <A, T>(workflow: Workflow<A, T>, runId: string, signal: AbortSignal | undefined, prepare: Prepare<A>): RunHandle<T> => {
    const run = new LiveRun(runId, workflow?.name, (key, decision, opts) => resolveOffline(runId, key, decision, opts));
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
    void execute(run, workflow, prepare).then(
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

  async function execute<A, T>(run: LiveRun, workflow: Workflow<A, T>, prepare: Prepare<A>): Promise<RunOutcome> {
    if (typeof workflow?.body !== 'function' || typeof workflow.name !== 'string') {
      throw new ConfigError('config.invalid_value', 'run and resume need a workflow made by defineWorkflow');
    }
    run.log = await RunLog.load(store, run.runId);
    run.log.onForeignResolution = (resolution) => run.wake(resolution.key, resolution);
    const prepared = await prepare(run.log, run);
    // A completed run's resume: its journaled outcome, nothing run.
    if (!('args' in prepared)) return prepared;
    const value = journalable(await workflow.body(createContext(run, options, adapters), prepared.args), `the value of workflow ${JSON.stringify(workflow.name)}`);
    if (!run.isSettled) await run.log.write(entry({ type: 'run:end', value }));
    return { status: 'completed', value };
  }

  return {
    run(workflow, args, opts = {}) {
      const runId = opts.runId ?? crypto.randomUUID();
      return start(workflow, runId, opts.signal, async (log) => {
        if (log.size > 0) throw new RulvarError('journal.run_exists', `run ${JSON.stringify(runId)} already has a journal; resume it instead`);
        const journaledArgs = journalable(args, 'the args of a run');
        await log.write(entry({ type: 'run:start', workflow: workflow.name, args: journaledArgs, at: new Date().toISOString() }));
        return { args: journaledArgs };
      });
    },
    resume(runId, workflow, opts = {}) {
      return start(workflow, runId, opts.signal, async (log, run) => {
        const started = log.start;
        if (log.size === 0 || started === undefined) throw unknownRun(runId);
        if (started.workflow !== workflow.name) {
          throw new RulvarError('journal.workflow_mismatch', `run ${JSON.stringify(runId)} was started by workflow ${JSON.stringify(started.workflow)}, not ${JSON.stringify(workflow.name)}`);
        }
        if ('args' in opts && canonicalJson(journalable(opts.args, 'the args of a run')) !== canonicalJson(started.args)) {
          throw new RulvarError('journal.args_mismatch', `run ${JSON.stringify(runId)} was started with other args; resume with the journaled ones (or none)`);
        }
        if (log.end !== undefined) return { status: 'completed', value: log.end.value };
        // Deadlines that passed while nothing ran close first, so the replay applies them.
        for (const written of await closePassedDeadlines(log)) run.events.emit('approval:resolved', { runId, ...resolutionOf(written) });
        return { args: started.args as never };
      });
    },
    async resolveExternal(runId, key, decision, opts) {
      // A live run resolves in place, or hands a settled one back to resolveOffline itself.
      const run = live.get(runId);
      return run === undefined ? resolveOffline(runId, key, decision, opts) : run.resolve(key, decision, opts ?? {});
    },
    async pending(runId) {
      const { log, closed } = await withDeadlinesApplied(store, runId);
      for (const resolution of closed) engineEvents.emit('approval:resolved', { runId, ...resolution });
      return openApprovals(log);
    },
    async nextDeadline(runId) {
      return nextDeadlineOf(await loadExisting(store, runId));
    },
    on: (event, listener) => engineEvents.on(event, listener),
  };
}

/** Checks a run or resume against its journal; the workflow's args to go on, or the outcome already reached. */
type Prepare<A> = (log: RunLog, run: LiveRun) => Promise<{ args: A } | RunOutcome>;

function asRulvarError(error: unknown): RulvarError {
  if (RulvarError.is(error)) return error;
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
