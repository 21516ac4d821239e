/**
 * Workflows and the `ctx` they run with. `ctx.step` runs once per run and is replayed from
 * the journal; `ctx.agent` plans its spawn synchronously (so the ordinal of identical spawns
 * follows call order even under Promise.all), then resolves its toolset and runs the loop.
 */
import { ConfigError, RulvarError } from '../errors.js';
import { runAgent } from './agent-loop.js';
import { journalable } from '../journal/json-safe.js';
import type { LiveRun } from './live-run.js';
import type { ModelAdapter } from '../model/types.js';
import { entry } from './entries.js';
import { completeSpawn, planSpawn } from './spawn.js';
import { identifyAgent, type AgentTrace } from './tracing.js';
import type { AgentOptions, AgentResult, EngineOptions, Workflow, WorkflowContext } from './types.js';

export function defineWorkflow<A = unknown, T = unknown>(meta: { name: string }, body: (ctx: WorkflowContext, args: A) => Promise<T>): Workflow<A, T> {
  if (typeof meta?.name !== 'string' || meta.name.length === 0) {
    throw new ConfigError('config.invalid_value', 'defineWorkflow needs a non-empty name');
  }
  if (typeof body !== 'function') throw new ConfigError('config.invalid_value', `workflow ${JSON.stringify(meta.name)} needs a body function`);
  return Object.freeze({ name: meta.name, body });
}

export function createContext(run: LiveRun, options: EngineOptions, adapters: ReadonlyMap<string, ModelAdapter>): WorkflowContext {
  return {
    runId: run.runId,
    agent(prompt: string, call: AgentOptions = {}): Promise<AgentResult> {
      if (run.isSettled) return afterSettled();
      return run.busy(async () => {
        const plan = planSpawn(options, adapters, prompt, call);
        const ordinal = run.ordinals.get(plan.descriptor) ?? 0;
        run.ordinals.set(plan.descriptor, ordinal + 1);
        const work = async (trace?: AgentTrace) => {
          const spawn = await completeSpawn(plan, { runId: run.runId, workflow: run.workflow, incarnation: run.log.start?.incarnation }, ordinal, options, run.controller.signal);
          if (trace === undefined) return runAgent(run, spawn, options.defaults?.retry);
          identifyAgent(trace, spawn, run.log.spawns.has(spawn.key));
          return runAgent(run, { ...spawn, trace }, options.defaults?.retry);
        };
        return run.trace === undefined ? work() : run.trace.agent(plan, work);
      });
    },
    step<T>(name: string, body: () => Promise<T> | T): Promise<T> {
      if (run.isSettled) return afterSettled();
      return run.busy(async () => {
        if (typeof name !== 'string') throw new ConfigError('config.invalid_value', 'ctx.step needs a string name');
        if (run.stepNames.has(name)) throw new RulvarError('step.duplicate_name', `step ${JSON.stringify(name)} already ran in this run`);
        run.stepNames.add(name);
        const journaled = run.log.steps.get(name);
        if (journaled !== undefined) return journaled.value as T;
        await run.beforeEffect();
        const value = journalable(await body(), `the value of step ${JSON.stringify(name)}`);
        await run.log.write(entry({ type: 'step', name, value }));
        return value;
      });
    },
  };
}

/**
 * An operation a workflow starts after its run settled (it kept going on something the
 * engine does not see) never starts: writing now could race the engine that resumes the run.
 */
function afterSettled<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
