/**
 * The per-result cap at dispatch (issue 23 item 4): a result whose output is over
 * `maxResultBytes` as JSON (default MAX_RESULT_BYTES, 16 MiB) becomes an error result the
 * model reads, on both paths a call takes (dispatchTool, and runApprovedCall for an approved
 * ask), exactly at the bound: a result of the cap's size is kept, one byte more is not. The
 * engine's runs get the default, so a run whose tool returns too much still completes.
 */
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

const MIB = 1024 * 1024;

export function resultCapSuite(h: SuiteHarness): void {
  const { tool, resolveToolset, dispatchTool, runApprovedCall, MAX_RESULT_BYTES, createEngine, defineWorkflow, memoryJournal } = h.lib;
  const returning = async (output: unknown) => resolveToolset([tool({ name: 'big', description: '', parameters: { type: 'object' }, execute: () => output })]);
  const call = { id: 'c1', name: 'big', input: {} };
  const capped = (cap: number) => ({
    callId: 'c1',
    toolName: 'big',
    isError: true,
    output: `the result of big is over ${cap} bytes as JSON (maxResultBytes), so it was not kept; ask for less of it`,
    reason: 'invalid_output',
  });
  const resultOf = async (output: unknown, maxResultBytes?: number) => {
    const outcome = await dispatchTool(await returning(output), call, maxResultBytes === undefined ? {} : { maxResultBytes });
    if (outcome.status !== 'done') throw new Error('expected a result');
    return outcome.result;
  };

  h.describe('dispatchTool: the per-result cap', () => {
    h.it('the default is 16 MiB of JSON: a string of exactly that is kept, one byte more is an error result', async () => {
      h.expect(MAX_RESULT_BYTES).toBe(16 * MIB);
      // JSON adds the two quotes.
      const atCap = 'x'.repeat(MAX_RESULT_BYTES - 2);
      h.expect((await resultOf(atCap)).output).toBe(atCap);
      h.expect(await resultOf(`${atCap}x`)).toEqual(capped(MAX_RESULT_BYTES));
    }, 30_000);

    h.it('maxResultBytes sets it, counted as JSON writes the output (escapes, structures, every UTF-8 byte)', async () => {
      h.expect((await resultOf('x'.repeat(98), 100)).output).toBe('x'.repeat(98));
      h.expect(await resultOf('x'.repeat(99), 100)).toEqual(capped(100));
      // 40 characters, 80 bytes once each quote is escaped, 82 with the quotes: over 81.
      h.expect(await resultOf('"'.repeat(40), 81)).toEqual(capped(81));
      h.expect((await resultOf('"'.repeat(40), 82)).output).toBe('"'.repeat(40));
      // '€' is 3 bytes in UTF-8.
      h.expect(await resultOf('€'.repeat(30), 91)).toEqual(capped(91));
      h.expect((await resultOf('€'.repeat(30), 92)).isError).toBe(false);
      const rows = { rows: Array.from({ length: 10 }, (_, i) => ({ i })) };
      const bytes = JSON.stringify(rows).length;
      h.expect((await resultOf(rows, bytes)).output).toEqual(rows);
      h.expect(await resultOf(rows, bytes - 1)).toEqual(capped(bytes - 1));
      // Small outputs of every other kind pass as they are.
      for (const small of [42, true, null]) h.expect((await resultOf(small, 10)).output).toBe(small);
    });

    h.it('an approved call run through runApprovedCall is capped the same way', async () => {
      const set = await returning('y'.repeat(200));
      h.expect(await runApprovedCall(set, call, {}, { maxResultBytes: 100 })).toEqual(capped(100));
      h.expect((await runApprovedCall(set, call, {}, { maxResultBytes: 202 })).output).toBe('y'.repeat(200));
    });

    h.it('a maxResultBytes that is not a positive integer is config.invalid_value, before the tool runs', async () => {
      let ran = 0;
      const set = await resolveToolset([tool({ name: 'big', description: '', parameters: { type: 'object' }, execute: () => (ran += 1) })]);
      for (const bad of [0, -1, 1.5, Number.NaN, '100']) {
        await expectConfigError(h, () => dispatchTool(set, call, { maxResultBytes: bad as number }), 'config.invalid_value');
        await expectConfigError(h, () => runApprovedCall(set, call, {}, { maxResultBytes: bad as number }), 'config.invalid_value');
      }
      h.expect(ran).toBe(0);
    });

    h.it('a run whose tool returns more than the cap completes: the model reads the error result', async () => {
      const model = scripted([{ toolCalls: [{ name: 'dump', input: {} }] }, 'done']);
      const dump = tool({ name: 'dump', description: '', parameters: { type: 'object' }, execute: () => 'z'.repeat(MAX_RESULT_BYTES) });
      const journal = memoryJournal();
      const engine = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m' } });
      const wf = defineWorkflow({ name: 'dumper' }, async (ctx) => (await ctx.agent('dump it', { tools: [dump] })).text);
      h.expect(await engine.run(wf, null, { runId: 'dump-1' }).result).toEqual({ status: 'completed', value: 'done' });
      const tools = (await journal.load('dump-1')).filter((e) => e.type === 'tool');
      h.expect(tools).toHaveLength(1);
      const result = tools[0]?.type === 'tool' ? tools[0].result : undefined;
      h.expect(result).toMatchObject({ toolName: 'dump', isError: true, reason: 'invalid_output', output: capped(MAX_RESULT_BYTES).output.replace('of big', 'of dump') });
    }, 30_000);
  });
}
