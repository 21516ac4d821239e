/**
 * Unit tests of createEngine and its run handles (src/core/engine/engine.ts) over a memory
 * journal: every refusal word for word (adapters, leaseMs, a workflow not made by
 * defineWorkflow, a resume of another workflow or with other args, a second run under one id),
 * a caller's signal (aborted before the run starts, or during it; its listener removed once
 * the run settles), a workflow's failure kept as the cause, and its value journaled.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createEngine, defineWorkflow, memoryJournal, tool, type RulvarError, type RunOutcome } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import { caught } from '../core/helpers.js';

const MAX_LEASE_MS = 2 ** 31 - 1;
const adapter = () => scripted(['done']);
const refusal = async (work: () => unknown) => {
  const error = (await caught(work)) as RulvarError;
  return [error.code, error.message];
};
const failure = (outcome: RunOutcome) => (outcome.status === 'failed' ? [outcome.error.code, outcome.error.message] : outcome.status);

describe('createEngine: refusals', () => {
  it('adapters: a list is needed, each with a string id and a generate function, no id twice', async () => {
    expect(await refusal(() => createEngine({} as never))).toEqual(['config.missing_key', 'createEngine needs adapters: a list of model adapters']);
    for (const bad of [null, {}, { id: 'x' }, { generate: async () => ({}) }, { id: 7, generate: async () => ({}) }]) {
      expect(await refusal(() => createEngine({ adapters: [bad as never] }))).toEqual(['config.invalid_value', 'every model adapter needs a string id and a generate function']);
    }
    expect(await refusal(() => createEngine({ adapters: [adapter(), adapter()] }))).toEqual(['config.invalid_value', 'two model adapters have id "scripted"']);
  });

  it('leaseMs: a whole number of milliseconds from 3 to 2^31 - 1; the edges are taken', async () => {
    for (const bad of [2, MAX_LEASE_MS + 1, 1.5, '1000', Number.NaN]) {
      expect(await refusal(() => createEngine({ adapters: [adapter()], leaseMs: bad as never }))).toEqual([
        'config.invalid_value',
        `leaseMs must be a whole number of milliseconds from 3 to ${MAX_LEASE_MS}, not ${String(bad)}`,
      ]);
    }
    createEngine({ adapters: [adapter()], leaseMs: 3 });
    createEngine({ adapters: [adapter()], leaseMs: MAX_LEASE_MS });
  });
});

describe('runs and resumes', () => {
  const echo = defineWorkflow({ name: 'echo' }, async (_ctx, args: unknown) => args);

  it('run and resume refuse a workflow not made by defineWorkflow', async () => {
    const engine = createEngine({ adapters: [adapter()], journal: memoryJournal() });
    for (const bad of [undefined, { name: 'w' }, { body: async () => 1 }, { name: 7, body: async () => 1 }]) {
      expect(failure(await engine.run(bad as never, null).result)).toEqual(['config.invalid_value', 'run and resume need a workflow made by defineWorkflow']);
    }
    const done = engine.run(echo, 1);
    await done.result;
    expect(failure(await engine.resume(done.runId, { name: 'echo' } as never).result)).toEqual(['config.invalid_value', 'run and resume need a workflow made by defineWorkflow']);
  });

  it('a resume of another workflow, or with other args, is refused naming the run; the same args in another key order are fine', async () => {
    const journal = memoryJournal();
    const engine = createEngine({ adapters: [adapter()], journal });
    const first = engine.run(echo, { a: 1, b: 2 });
    await first.result;
    const other = defineWorkflow({ name: 'other' }, async () => 1);
    expect(failure(await engine.resume(first.runId, other).result)).toEqual(['journal.workflow_mismatch', `run "${first.runId}" was started by workflow "echo", not "other"`]);
    expect(failure(await engine.resume(first.runId, echo, { args: { a: 1 } }).result)).toEqual(['journal.args_mismatch', `run "${first.runId}" was started with other args; resume with the journaled ones (or none)`]);
    expect(await engine.resume(first.runId, echo, { args: { b: 2, a: 1 } }).result).toEqual({ status: 'completed', value: { a: 1, b: 2 } });
    const [code, message] = failure(await engine.resume(first.runId, echo, { args: { a: 1n } }).result) as string[];
    expect([code, message]).toEqual(['config.invalid_value', expect.stringContaining('the args of a run')]);
    // A second run under the same id is refused: resume it instead.
    expect(failure(await engine.run(echo, 1, { runId: first.runId }).result)).toEqual(['journal.run_exists', `run "${first.runId}" already has a journal; resume it instead`]);
  });

  it('a value or args JSON cannot hold fail the run, naming what they were', async () => {
    const engine = createEngine({ adapters: [adapter()], journal: memoryJournal() });
    const bigint = defineWorkflow({ name: 'bigint' }, async () => 1n);
    const [code, message] = failure(await engine.run(bigint, null).result) as string[];
    expect([code, message]).toEqual(['config.invalid_value', expect.stringContaining('the value of workflow "bigint"')]);
    const [argsCode, argsMessage] = failure(await engine.run(echo, 2n).result) as string[];
    expect([argsCode, argsMessage]).toEqual(['config.invalid_value', expect.stringContaining('the args of a run')]);
  });

  it('a workflow that throws fails workflow.failed with what it threw as the cause', async () => {
    const thrown = new TypeError('the body broke');
    const engine = createEngine({ adapters: [adapter()], journal: memoryJournal() });
    const outcome = await engine.run(defineWorkflow({ name: 'broken' }, async () => { throw thrown; }), null).result; // prettier-ignore
    expect(failure(outcome)).toEqual(['workflow.failed', 'the workflow failed: the body broke']);
    expect(outcome.status === 'failed' && outcome.error.cause).toBe(thrown);
  });

  it('a signal aborted before the run: run.aborted at once, nothing journaled', async () => {
    const journal = memoryJournal();
    const engine = createEngine({ adapters: [adapter()], journal });
    const stop = new AbortController();
    stop.abort();
    const handle = engine.run(echo, 1, { signal: stop.signal });
    expect(failure(await handle.result)).toEqual(['run.aborted', `run ${handle.runId} was aborted`]);
    expect(await journal.load(handle.runId)).toEqual([]);
  });

  it('a signal aborted during the run ends it run.aborted; a run that settles leaves no listener on the caller\'s signal', async () => {
    const engine = createEngine({ adapters: [adapter()], journal: memoryJournal() });
    const stop = new AbortController();
    const slow = defineWorkflow({ name: 'slow' }, (ctx) => ctx.step('wait', () => new Promise<number>(() => undefined)));
    const handle = engine.run(slow, null, { signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort();
    expect(failure(await handle.result)).toEqual(['run.aborted', `run ${handle.runId} was aborted`]);

    const kept = new AbortController();
    await engine.run(echo, 1, { signal: kept.signal }).result;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });

  it('a completed run\'s resume answers its journaled value with no model call', async () => {
    const model = scripted(['hello']);
    const engine = createEngine({ adapters: [model], journal: memoryJournal(), defaults: { model: 'scripted:m' } });
    const chat = defineWorkflow({ name: 'chat' }, async (ctx) => (await ctx.agent('hi')).text);
    const first = engine.run(chat, null);
    expect(await first.result).toEqual({ status: 'completed', value: 'hello' });
    expect(await engine.resume(first.runId, chat).result).toEqual({ status: 'completed', value: 'hello' });
    expect(model.calls).toBe(1);
  });
});

describe('resolveExternal and its queue', () => {
  it('resolutions of a settled run are taken one after another: of two at once, one wins; an error does not stop the next', async () => {
    const journal = memoryJournal();
    const ask = scripted([{ toolCalls: [{ name: 'pay', input: {} }] }, 'paid']);
    const engine = createEngine({ adapters: [ask], journal, defaults: { model: 'scripted:m' } });
    const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: () => 'paid' });
    const payer = defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).text);
    const outcome = await engine.run(payer, null).result;
    if (outcome.status !== 'suspended') throw new Error(outcome.status);
    const [approval] = outcome.approvals;
    const answers = await Promise.all([engine.resolveExternal(approval!.runId, approval!.key, 'allow'), engine.resolveExternal(approval!.runId, approval!.key, 'deny')]);
    expect([...answers].sort()).toEqual([false, true]);
    expect(await engine.resolveExternal(approval!.runId, 'no such key', 'allow')).toBe(false);
    await expect(engine.resolveExternal('no such run', 'k', 'allow')).rejects.toMatchObject({ code: 'journal.unknown_run' });
    // The queue goes on after a refusal.
    expect(await engine.resolveExternal(approval!.runId, approval!.key, 'allow')).toBe(false);
  });
});
