/**
 * Unit tests of workflows and their `ctx` (src/core/engine/workflow.ts) through a real engine
 * over a memory journal: defineWorkflow's refusals and its frozen result; ctx.step's refusals
 * (a name that is not a string, a name used twice in one run); an agent with no engine
 * defaults at all; and a workflow that starts work after its run settled, which never starts
 * (writing then could race the engine that resumes the run). Also resultCleaner
 * (tool-redaction.ts): no cleaner when no adapter declares a redact.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, defineWorkflow, memoryJournal, type ModelAdapter, type WorkflowContext } from '../../src/core/index.js';
import { resultCleaner } from '../../src/core/engine/tool-redaction.js';
import { scripted } from '../../src/testing/index.js';

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return [(error as { code?: unknown }).code, (error as Error).message];
  }
  return 'no refusal';
};

describe('defineWorkflow', () => {
  it('refuses a missing or empty name and a body that is not a function, saying which', () => {
    const body = async () => 1;
    for (const meta of [undefined, null, {}, { name: 7 }, { name: '' }]) {
      expect(refusal(() => defineWorkflow(meta as never, body))).toEqual(['config.invalid_value', 'defineWorkflow needs a non-empty name']);
    }
    expect(refusal(() => defineWorkflow({ name: 'w' }, 'not a body' as never))).toEqual(['config.invalid_value', 'workflow "w" needs a body function']);
  });

  it('is a frozen pair of its name and body', () => {
    const body = async () => 1;
    const workflow = defineWorkflow({ name: 'w' }, body);
    expect(workflow).toEqual({ name: 'w', body });
    expect(Object.isFrozen(workflow)).toBe(true);
  });
});

describe('ctx.step and ctx.agent', () => {
  const run = async <T>(body: (ctx: WorkflowContext) => Promise<T>, adapters: ModelAdapter[] = [scripted(['done'])], withDefaults = true) => {
    const engine = createEngine({ adapters, journal: memoryJournal(), ...(withDefaults ? { defaults: { model: 'scripted:m' } } : {}) });
    return engine.run(defineWorkflow({ name: 'w' }, body), null).result;
  };

  it('a step name that is not a string is config.invalid_value; one used twice is step.duplicate_name, naming it', async () => {
    const badName = await run((ctx) => ctx.step(7 as never, () => 1));
    expect(badName.status === 'failed' && [badName.error.code, badName.error.message]).toEqual(['config.invalid_value', 'ctx.step needs a string name']);
    const twice = await run(async (ctx) => {
      await ctx.step('once', () => 1);
      return ctx.step('once', () => 2);
    });
    expect(twice.status === 'failed' && twice.error.code).toBe('step.duplicate_name');
    expect(twice.status === 'failed' && twice.error.message).toContain('step "once" already ran in this run');
  });

  it('an agent runs on an engine with no defaults at all, its model named by the call', async () => {
    const outcome = await run(async (ctx) => (await ctx.agent('go', { model: 'scripted:m' })).text, [scripted(['no defaults needed'])], false);
    expect(outcome).toEqual({ status: 'completed', value: 'no defaults needed' });
  });

  it('a step or an agent started after the run settled never starts: its body does not run', async () => {
    let later: WorkflowContext | undefined;
    const outcome = await run(async (ctx) => {
      later = ctx;
      return 'settled';
    });
    expect(outcome).toEqual({ status: 'completed', value: 'settled' });
    let ran = false;
    const step = later!.step('late', () => (ran = true));
    const agent = later!.agent('late');
    const first = await Promise.race([step.then(() => 'step settled'), agent.then(() => 'agent settled'), new Promise((resolve) => setTimeout(() => resolve('still pending'), 50))]);
    expect(first).toBe('still pending');
    expect(ran).toBe(false);
  });
});

describe('resultCleaner', () => {
  it('no cleaner when no adapter declares a redact; one that applies each declared redact otherwise', () => {
    expect(resultCleaner([scripted(['a']), { id: 'plain', generate: async () => ({ text: '', toolCalls: [], stopReason: 'end' }) }])).toBeUndefined();
    const masking = (id: string, secret: string): ModelAdapter => ({ id, generate: async () => ({ text: '', toolCalls: [], stopReason: 'end' }), redact: (text) => text.replaceAll(secret, '[redacted]') });
    const clean = resultCleaner([masking('a', 'key-A'), scripted(['x']), masking('b', 'key-B')]);
    expect(clean?.({ callId: 'c', toolName: 't', isError: false, output: { a: 'key-A here', b: ['and key-B'] } })).toEqual({ callId: 'c', toolName: 't', isError: false, output: { a: '[redacted] here', b: ['and [redacted]'] } });
  });
});
