/**
 * `dispatchTool` outcome by outcome, over native tools: the exact result and audit of a
 * refused call (malformed, unknown tool, invalid input), lazy admission of a toolset built by
 * hand, the call as the permission chain sees it, re-validation after a callback touched the
 * input, output validation, and that the signal reaches `execute`.
 */
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

export function dispatchSuite(h: SuiteHarness): void {
  const { tool, resolveToolset, dispatchTool } = h.lib;
  const NUMBERED = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const refusal = (reason: string) => ({ verdict: 'deny', layer: 'validation', advisory: [], reason });

  h.describe('dispatchTool: refused before the chain', () => {
    const toolset = async () =>
      resolveToolset([
        tool({ name: 'alpha', description: '', parameters: NUMBERED, execute: () => 'ran' }),
        tool({ name: 'beta', description: '', parameters: { type: 'object' }, execute: () => 'ran' }),
      ]);

    h.it('a call without a string id and name is refused, keeping what it can of the call', async () => {
      const set = await toolset();
      const message = 'a tool call needs a string id and a string tool name';
      const cases: ReadonlyArray<readonly [unknown, string, string, unknown]> = [
        [{ id: 7, name: 'alpha', input: { n: 1 } }, '', 'alpha', { n: 1 }],
        [{ id: 'c1', name: 7, input: 'x' }, 'c1', '', 'x'],
        [undefined, '', '', undefined],
        [null, '', '', undefined],
      ];
      for (const [call, callId, toolName, input] of cases) {
        h.expect(await dispatchTool(set, call as never)).toEqual({
          status: 'done',
          result: { callId, toolName, isError: true, output: message, reason: 'invalid_input' },
          audit: refusal(message),
          input,
        });
      }
    });

    h.it('an unknown tool is an error result listing the tools there are', async () => {
      const outcome = await dispatchTool(await toolset(), { id: 'c1', name: 'gamma', input: {} });
      const message = 'there is no tool named "gamma"; available tools: alpha, beta';
      h.expect(outcome).toEqual({
        status: 'done',
        result: { callId: 'c1', toolName: 'gamma', isError: true, output: message, reason: 'invalid_input' },
        audit: refusal(message),
        input: {},
      });
    });

    h.it('invalid arguments are an error result naming each failing field; the audit keeps the first line', async () => {
      let ran = 0;
      const set = await resolveToolset([tool({ name: 'alpha', description: '', parameters: NUMBERED, execute: () => (ran += 1) })]);
      const outcome = await dispatchTool(set, { id: 'c1', name: 'alpha', input: { n: 'one' } });
      h.expect(outcome.status).toBe('done');
      if (outcome.status !== 'done') return;
      h.expect(outcome.result).toMatchObject({ callId: 'c1', toolName: 'alpha', isError: true, reason: 'invalid_input' });
      h.expect(String(outcome.result.output)).toMatch(/^the arguments for alpha are invalid:\n- \/n: type: /);
      h.expect(outcome.audit).toEqual(refusal('the arguments for alpha are invalid:'));
      h.expect(ran).toBe(0);
    });
  });

  h.describe('dispatchTool: a toolset built by hand', () => {
    const handMade = (parameters: unknown) => {
      const def = { name: 'raw', description: '', parameters, needsApproval: false, execute: async () => 'ran' };
      return { tools: [def], toolsetHash: '', authorityHash: '', get: (name: string) => (name === 'raw' ? def : undefined) } as never;
    };

    h.it('admits a tool that skipped resolveToolset on its first dispatch', async () => {
      const outcome = await dispatchTool(handMade({ type: 'object' }), { id: 'c1', name: 'raw', input: {} });
      h.expect(outcome).toMatchObject({ status: 'done', result: { isError: false, output: 'ran' } });
    });

    h.it('refuses its unsupported schema as a host error naming dispatchTool', async () => {
      const message = await expectConfigError(h, () => dispatchTool(handMade({ $dynamicRef: '#a' }), { id: 'c1', name: 'raw', input: {} }), 'schema.unsupported');
      h.expect(message).toMatch(/^dispatchTool: tool "raw" parameters at /);
    });
  });

  h.describe('dispatchTool: through the chain', () => {
    h.it('the chain sees the call as dispatched, with risk and signal only when there are some', async () => {
      const seen: Record<string, unknown>[] = [];
      const hooks = [(call: object) => void seen.push({ ...call })];
      const set = await resolveToolset([
        tool({ name: 'plain', description: '', parameters: { type: 'object' }, execute: () => 1 }),
        tool({ name: 'risky', description: '', parameters: { type: 'object' }, risk: 'network', needsApproval: true, execute: () => 1 }),
      ]);
      const signal = new AbortController().signal;
      await dispatchTool(set, { id: 'c1', name: 'plain', input: {} }, { permissions: { hooks } });
      await dispatchTool(set, { id: 'c2', name: 'risky', input: { a: 1 } }, { permissions: { hooks }, signal });
      h.expect(seen).toEqual([
        { callId: 'c1', toolName: 'plain', input: {}, needsApproval: false },
        { callId: 'c2', toolName: 'risky', input: { a: 1 }, needsApproval: true, risk: 'network', signal },
      ]);
      h.expect(Object.keys(seen[0] ?? {}).sort()).toEqual(['callId', 'input', 'needsApproval', 'toolName']);
    });

    h.it('execute gets the caller signal, or one that never aborts', async () => {
      const signals: AbortSignal[] = [];
      const set = await resolveToolset([
        tool({ name: 'probe', description: '', parameters: { type: 'object' }, execute: (_input, ctx) => void signals.push(ctx.signal) }),
      ]);
      const controller = new AbortController();
      await dispatchTool(set, { id: 'c1', name: 'probe', input: {} }, { signal: controller.signal });
      await dispatchTool(set, { id: 'c2', name: 'probe', input: {} });
      h.expect(signals[0]).toBe(controller.signal);
      h.expect(signals[1]).toBeInstanceOf(AbortSignal);
      h.expect(signals[1]?.aborted).toBe(false);
    });

    h.it('a rewrite that breaks the schema is refused with the audit of the layer that rewrote it', async () => {
      const set = await resolveToolset([tool({ name: 'alpha', description: '', parameters: NUMBERED, execute: () => 'ran' })]);
      const hooks = [() => ({ modifiedInput: { n: 'one' } })];
      const outcome = await dispatchTool(set, { id: 'c1', name: 'alpha', input: { n: 1 } }, { permissions: { hooks } });
      h.expect(outcome).toMatchObject({ status: 'done', audit: { verdict: 'allow', layer: 'default' }, input: { n: 'one' } });
      if (outcome.status !== 'done') return;
      h.expect(outcome.result).toMatchObject({ callId: 'c1', toolName: 'alpha', isError: true, reason: 'invalid_input' });
      h.expect(String(outcome.result.output)).toMatch(/^the arguments for alpha, as a permission hook rewrote them, are invalid:\n- \/n: /);
    });

    h.it('an in-place edit is caught whichever config in a list carries the callback', async () => {
      let ran = 0;
      const set = await resolveToolset([tool({ name: 'alpha', description: '', parameters: NUMBERED, execute: () => (ran += 1) })]);
      const edit = (input: unknown) => void ((input as { n: unknown }).n = 'sneaky');
      const configs = [
        [{ preset: 'open' as const }, { hooks: [(call: { input: unknown }) => edit(call.input)] }],
        [undefined, { hooks: [] }, { canUseTool: (_name: string, input: unknown) => edit(input) }],
        { canUseTool: (_name: string, input: unknown) => edit(input) },
      ];
      for (const permissions of configs) {
        const outcome = await dispatchTool(set, { id: 'c1', name: 'alpha', input: { n: 1 } }, { permissions: permissions as never });
        h.expect(outcome).toMatchObject({ status: 'done', result: { isError: true, reason: 'invalid_input' } });
      }
      h.expect(ran).toBe(0);
    });
  });

  h.describe('dispatchTool: output validation', () => {
    const shaped = (output: unknown) =>
      tool({ name: 'shaped', description: '', parameters: { type: 'object' }, outputSchema: { type: 'object', required: ['id'] }, execute: () => output });

    h.it('a structured output that matches outputSchema is the result as returned', async () => {
      const outcome = await dispatchTool(await resolveToolset([shaped({ id: 'x' })]), { id: 'c1', name: 'shaped', input: {} });
      h.expect(outcome).toMatchObject({ status: 'done', result: { callId: 'c1', toolName: 'shaped', isError: false, output: { id: 'x' } } });
    });

    h.it('an output that does not match is an invalid_output error naming the tool', async () => {
      const outcome = await dispatchTool(await resolveToolset([shaped('just text')]), { id: 'c1', name: 'shaped', input: {} });
      h.expect(outcome.status).toBe('done');
      if (outcome.status !== 'done') return;
      h.expect(Object.keys(outcome.result).sort()).toEqual(['callId', 'isError', 'output', 'reason', 'toolName']);
      h.expect(outcome.result).toMatchObject({ callId: 'c1', toolName: 'shaped', isError: true, reason: 'invalid_output' });
      h.expect(String(outcome.result.output)).toMatch(/^the output of shaped does not match its outputSchema:\n- \(root\): type: /);
      h.expect(outcome.audit).toMatchObject({ verdict: 'allow', layer: 'default' });
    });

    h.it('an error result is not held to outputSchema', async () => {
      const failing = tool({
        name: 'shaped', description: '', parameters: { type: 'object' }, outputSchema: { type: 'object' },
        execute: () => { throw new Error('kaput'); },
      });
      const outcome = await dispatchTool(await resolveToolset([failing]), { id: 'c1', name: 'shaped', input: {} });
      h.expect(outcome).toMatchObject({ status: 'done', result: { isError: true, reason: 'execution', output: 'kaput' } });
    });
  });
}
