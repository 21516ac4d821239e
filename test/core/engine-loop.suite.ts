/**
 * The engine's agent loop and its refusals: the scripted() adapter it is tested with, turns
 * and their tool calls, errors that stay tool results, maxTurns, model retries, routing and
 * profiles, the typed refusals of run(), the events a handle emits, and ctx.step.
 */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import type {
  AgentOptions,
  AgentResult,
  EngineEventName,
  EngineOptions,
  Message,
  ModelAdapter,
  ModelRequest,
  RulvarError,
  RunHandle,
  RunOutcome,
  ToolDef,
} from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const EVENT_NAMES: readonly EngineEventName[] = ['agent:start', 'turn:end', 'tool:start', 'tool:end', 'approval:pending', 'approval:resolved', 'run:end'];
const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export function engineLoopSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, resolveToolset, attestToolset, memoryJournal, mcp } = h.lib;
  const NUMBERS = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
  const ANY = { type: 'object' };
  const FAST = { baseDelayMs: 1 };

  const agentOnce = (call: AgentOptions = {}, prompt = 'go') => defineWorkflow({ name: 'agent-once' }, (ctx) => ctx.agent(prompt, call));
  const runOnce = (options: EngineOptions, call: AgentOptions = {}): Promise<RunOutcome<AgentResult>> => createEngine(options).run(agentOnce(call), undefined).result;
  const inputsOf = new WeakMap<ToolDef, unknown[]>();
  /** A tool that records its inputs (see runsOf) and answers with its name. */
  const counted = (name: string, extra: { risk?: 'write' } = {}): ToolDef => {
    const runs: unknown[] = [];
    const def = tool({ name, description: `the ${name} tool`, parameters: ANY, ...extra, execute: (input: unknown) => (runs.push(input), `${name} ran`) });
    inputsOf.set(def, runs);
    return def;
  };
  const runsOf = (def: ToolDef): unknown[] => inputsOf.get(def) ?? [];
  const completed = (outcome: RunOutcome<AgentResult>): AgentResult => {
    if (outcome.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)} ${outcome.status === 'failed' ? outcome.error.message : ''}`);
    return outcome.value;
  };
  const failed = (outcome: RunOutcome<unknown>, code: string): RulvarError => {
    h.expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') throw new Error('unreachable');
    h.expect(h.lib.RulvarError.is(outcome.error)).toBe(true);
    h.expect(outcome.error.code).toBe(code);
    return outcome.error;
  };
  const toolMessage = (message: Message | undefined) => {
    if (message?.role !== 'tool') throw new Error(`expected a tool message, got ${JSON.stringify(message)}`);
    return message.results;
  };
  const record = (handle: RunHandle<unknown>) => {
    const seen: { name: EngineEventName; event: Record<string, unknown> }[] = [];
    for (const name of EVENT_NAMES) handle.on(name, (event) => seen.push({ name, event: event as Record<string, unknown> }));
    return seen;
  };

  h.describe('engine: scripted()', () => {
    const request = (assistants: number): ModelRequest => ({
      model: 'm',
      messages: [
        { role: 'user', text: 'hi' },
        // Tool messages sit between assistant turns; only assistant messages pick the turn.
        ...Array.from({ length: assistants }, (): Message[] => [{ role: 'assistant', text: '', toolCalls: [] }, { role: 'tool', results: [] }]).flat(),
      ],
      tools: [],
    });

    h.it('a fresh instance asked with 2 assistant messages answers script[2]; ids default to scripted-n-i', async () => {
      const model = scripted(['zero', { text: 'one' }, { text: 'two', toolCalls: [{ name: 'a', input: {} }, { id: 'mine', name: 'b', input: 1 }], usage: { inputTokens: 3, outputTokens: 4 } }]);
      h.expect(model.id).toBe('scripted');
      h.expect(await model.generate(request(2), new AbortController().signal)).toEqual({
        text: 'two',
        toolCalls: [{ id: 'scripted-2-0', name: 'a', input: {} }, { id: 'mine', name: 'b', input: 1 }],
        stopReason: 'tool_calls',
        usage: { inputTokens: 3, outputTokens: 4 },
      });
      h.expect(await model.generate(request(0), new AbortController().signal)).toEqual({ text: 'zero', toolCalls: [], stopReason: 'end' });
      h.expect((await model.generate(request(1), new AbortController().signal)).text).toBe('one');
      const past = await caught(() => model.generate(request(3), new AbortController().signal));
      h.expect((past as { retryable?: unknown }).retryable).not.toBe(true);
      h.expect(model.calls).toBe(4);
      const asked = request(0);
      await model.generate(asked, new AbortController().signal);
      asked.messages.push({ role: 'user', text: 'added later' });
      h.expect(model.requests.map((r) => r.messages.length)).toEqual([5, 1, 3, 7, 1]);
    });

    h.it('past the end the agent fails model.failed after one call, not retried', async () => {
      const model = scripted([{ toolCalls: [{ name: 'noop', input: {} }] }]);
      const outcome = await runOnce({ adapters: [model], defaults: { model: 'scripted:m', retry: FAST } }, { tools: [counted('noop')] });
      h.expect(failed(outcome, 'model.failed').message).toMatch(/scripted:m/);
      h.expect(model.calls).toBe(2);
    });

    h.it('the function form, sync and async, decides from the request it is given', async () => {
      const answer = (request: ModelRequest) => {
        const last = request.messages.at(-1);
        return last?.role === 'tool' ? `saw ${String(last.results[0]?.output)}` : { toolCalls: [{ name: 'noop', input: { n: request.messages.length } }] };
      };
      for (const script of [answer, async (request: ModelRequest) => (await macrotask(), answer(request))]) {
        const noop = counted('noop');
        const model = scripted(script);
        const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [noop] }));
        h.expect(result.text).toBe('saw noop ran');
        h.expect(runsOf(noop)).toEqual([{ n: 1 }]);
        h.expect(model.calls).toBe(2);
      }
    });

    h.it('records each request as it was: later turns do not grow earlier ones', async () => {
      const model = scripted([{ toolCalls: [{ name: 'noop', input: {} }] }, { toolCalls: [{ name: 'noop', input: {} }] }, 'done']);
      completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [counted('noop')], system: 's' }));
      h.expect(model.calls).toBe(3);
      h.expect(model.requests.map((r) => r.messages.length)).toEqual([1, 3, 5]);
      h.expect(model.requests[0]).toEqual({ model: 'm', system: 's', messages: [{ role: 'user', text: 'go' }], tools: [{ name: 'noop', description: 'the noop tool', parameters: ANY }] });
    });
  });

  h.describe('engine: the loop', () => {
    h.it('runs a turn\'s calls one after another and returns their results as one tool message, in call order', async () => {
      const order: string[] = [];
      const slow = (name: string) =>
        tool({
          name,
          description: `records ${name}`,
          parameters: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] },
          execute: async ({ v }: { v: string }) => {
            order.push(`start ${name}${v}`);
            await macrotask();
            order.push(`end ${name}${v}`);
            return `${name} got ${v}`;
          },
        });
      const tools = [slow('a'), slow('b')];
      const model = scripted([{ text: 'working', toolCalls: [{ name: 'a', input: { v: '1' } }, { name: 'b', input: { v: '2' } }, { name: 'a', input: { v: '3' } }] }, 'done']);
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools }));
      h.expect(order).toEqual(['start a1', 'end a1', 'start b2', 'end b2', 'start a3', 'end a3']);
      const calls = [{ id: 'scripted-0-0', name: 'a', input: { v: '1' } }, { id: 'scripted-0-1', name: 'b', input: { v: '2' } }, { id: 'scripted-0-2', name: 'a', input: { v: '3' } }];
      const results = calls.map((c) => ({ callId: c.id, toolName: c.name, isError: false, output: `${c.name} got ${c.input.v}` }));
      h.expect(result.history).toEqual([
        { role: 'user', text: 'go' },
        { role: 'assistant', text: 'working', toolCalls: calls },
        { role: 'tool', results },
        { role: 'assistant', text: 'done', toolCalls: [] },
      ]);
      h.expect(result.text).toBe('done');
      h.expect(result.turns).toBe(2);
      h.expect(result.toolsetHash).toBe((await resolveToolset(tools)).toolsetHash);
      h.expect(model.requests[1]?.messages).toEqual(result.history.slice(0, 3));
    });

    h.it('invalid arguments come back as invalid_input; the model corrects them and execute sees only the fix', async () => {
      const inputs: unknown[] = [];
      const add = tool({ name: 'add', description: 'adds', parameters: NUMBERS, execute: (input: { a: number; b: number }) => (inputs.push(input), input.a + input.b) });
      const model = scripted((request) => {
        const last = request.messages.at(-1);
        if (last?.role !== 'tool') return { toolCalls: [{ name: 'add', input: { a: 'one', b: 2 } }] };
        const result = last.results[0];
        return result?.reason === 'invalid_input' ? { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] } : `sum ${String(result?.output)}`;
      });
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [add] }));
      h.expect(inputs).toEqual([{ a: 1, b: 2 }]);
      h.expect(result.text).toBe('sum 3');
      h.expect(result.turns).toBe(3);
      const [refused] = toolMessage(result.history[2]);
      h.expect(refused).toMatchObject({ callId: 'scripted-0-0', toolName: 'add', isError: true, reason: 'invalid_input' });
      h.expect(String(refused?.output)).toMatch(/\/a: /);
    });

    h.it('an unknown tool, a throwing execute and a denied call are error results; the turn goes on', async () => {
      const boom = tool({ name: 'boom', description: '', parameters: ANY, execute: () => { throw new Error('the disk is on fire'); } });
      const writer = counted('writer', { risk: 'write' });
      const after = counted('after');
      const model = scripted([{ toolCalls: ['nope', 'boom', 'writer', 'after'].map((name) => ({ name, input: {} })) }, 'done']);
      const permissions = { deny: [{ risk: 'write' as const, description: 'no writes in review' }] };
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [boom, writer, after], permissions }));
      const results = toolMessage(result.history[2]);
      h.expect(results.map((r) => [r.toolName, r.isError, r.reason])).toEqual([
        ['nope', true, 'invalid_input'],
        ['boom', true, 'execution'],
        ['writer', true, 'denied'],
        ['after', false, undefined],
      ]);
      h.expect(results[1]?.output).toBe('the disk is on fire');
      h.expect(String(results[2]?.output)).toMatch(/^permission denied: .*writer.*no writes in review/);
      h.expect(runsOf(writer)).toEqual([]);
      h.expect(runsOf(after)).toEqual([{}]);
      h.expect(result.text).toBe('done');
    });

    h.it('an MCP server error, and a source closed mid-turn and between turns, are results the run survives', async () => {
      await using source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      const closer = tool({ name: 'closer', description: '', parameters: ANY, execute: async () => (await source.close(), 'closed') });
      const model = scripted([
        { toolCalls: [{ name: 'read_note', input: { title: 'nope' } }, { name: 'closer', input: {} }, { name: 'add_note', input: { title: 't', body: 'b' } }] },
        { toolCalls: [{ name: 'list_notes', input: {} }] },
        'finished',
      ]);
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [source, closer] }));
      const first = toolMessage(result.history[2]);
      h.expect(first.map((r) => [r.toolName, r.isError, r.reason])).toEqual([
        ['read_note', true, 'server_error'],
        ['closer', false, undefined],
        ['add_note', true, 'unavailable'],
      ]);
      h.expect(first[0]?.output).toBe('no note titled "nope"');
      h.expect(toolMessage(result.history[4])).toMatchObject([{ toolName: 'list_notes', isError: true, reason: 'unavailable' }]);
      h.expect(result.text).toBe('finished');
    });
  });

  h.describe('engine: maxTurns', () => {
    const endless = () => scripted(() => ({ toolCalls: [{ name: 'again', input: {} }] }));

    h.it('the last allowed turn asking for tools fails agent.max_turns without running them', async () => {
      for (const [maxTurns, expected] of [[3, 3], [undefined, 25]] as const) {
        const again = counted('again');
        const model = endless();
        const outcome = await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [again], ...(maxTurns === undefined ? {} : { maxTurns }) });
        h.expect(failed(outcome, 'agent.max_turns').message).toMatch(new RegExp(`\\b${expected}\\b`));
        h.expect(model.calls).toBe(expected);
        h.expect(runsOf(again).length).toBe(expected - 1);
      }
    });

    h.it('a final text on the last allowed turn completes', async () => {
      const model = scripted([{ toolCalls: [{ name: 'again', input: {} }] }, 'made it']);
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m' } }, { tools: [counted('again')], maxTurns: 2 }));
      h.expect([result.text, result.turns]).toEqual(['made it', 2]);
    });

    h.it('maxTurns, model and system: the call beats the profile, which beats the engine defaults', async () => {
      const profile = { maxTurns: 4, model: 'scripted:profile-model', system: 'profile system' };
      const cases: readonly [AgentOptions, number, string, string | undefined][] = [
        [{ agentType: 'p', maxTurns: 2, model: 'scripted:call-model', system: 'call system' }, 2, 'call-model', 'call system'],
        [{ agentType: 'p' }, 4, 'profile-model', 'profile system'],
        [{}, 5, 'engine-model', undefined],
      ];
      for (const [call, turns, modelName, system] of cases) {
        const model = endless();
        const outcome = await runOnce({ adapters: [model], defaults: { model: 'scripted:engine-model', maxTurns: 5, profiles: { p: profile } } }, { tools: [counted('again')], ...call });
        failed(outcome, 'agent.max_turns');
        h.expect(model.calls).toBe(turns);
        h.expect(model.requests[0]?.model).toBe(modelName);
        h.expect(model.requests[0]?.system).toBe(system);
        h.expect(model.requests[0] !== undefined && 'system' in model.requests[0]).toBe(system !== undefined);
      }
    });
  });

  h.describe('engine: what an adapter answers', () => {
    const answering = (answer: unknown): ModelAdapter => ({ id: 'odd', generate: async () => answer as never });
    const shapes: ReadonlyArray<readonly [string, unknown, string]> = [
      ['nothing', undefined, 'no response object'],
      ['null', null, 'no response object'],
      ['a string', 'hello', 'no response object'],
      ['no text', { toolCalls: [] }, 'a response without a string text'],
      ['no toolCalls', { text: 'hi' }, 'a response without a toolCalls array'],
      ['a call without an id', { text: '', toolCalls: [{ name: 'x', input: {} }] }, 'tool call 0 without a string id and name'],
      ['a null call', { text: '', toolCalls: [{ id: 'a', name: 'x', input: {} }, null] }, 'tool call 1 without a string id and name'],
    ];
    for (const [what, answer, message] of shapes) {
      h.it(`a response that is ${what} fails the agent with model.failed, naming what is wrong`, async () => {
        const outcome = await runOnce({ adapters: [answering(answer)], defaults: { model: 'odd:m' } });
        h.expect(failed(outcome, 'model.failed').message).toBe(`model odd:m failed: the adapter returned ${message}`);
      });
    }

    h.it('a missing or unknown stopReason is inferred from the tool calls; usage is kept only when whole', async () => {
      const seen: RunOutcome<AgentResult>[] = [];
      const answers = [
        { text: 'calling', toolCalls: [{ id: 'c1', name: 'note', input: {} }], usage: { inputTokens: 3 } },
        { text: 'done', toolCalls: [], stopReason: 'whatever', usage: { inputTokens: 5, outputTokens: 7 } },
      ];
      let n = 0;
      const adapter: ModelAdapter = { id: 'odd', generate: async () => answers[n++] as never };
      const handle = createEngine({ adapters: [adapter], defaults: { model: 'odd:m' } }).run(agentOnce({ tools: [counted('note')] }), undefined);
      const usages: unknown[] = [];
      handle.on('turn:end', (event) => usages.push(event.usage));
      seen.push(await handle.result);
      const result = completed(seen[0] as RunOutcome<AgentResult>);
      h.expect(result.history.filter((m) => m.role === 'assistant').map((m) => m.role === 'assistant' && m.toolCalls.length)).toEqual([1, 0]);
      h.expect(usages).toEqual([undefined, { inputTokens: 5, outputTokens: 7 }]);
    });

    h.it('a response is taken in as JSON in one walk: no undefined input, usage only with finite counts, -0 as 0, cycles refused', async () => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      const answers: unknown[] = [
        { text: 'calling', toolCalls: [{ id: 'c1', name: 'note' }], usage: { inputTokens: Number.NaN, outputTokens: 1 } },
        { text: 'done', toolCalls: [], usage: { inputTokens: -0, outputTokens: 2 } },
      ];
      let n = 0;
      const given: unknown[] = [];
      const adapter: ModelAdapter = { id: 'odd', generate: async () => (given.push(answers[n]), answers[n++] as never) };
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [adapter], defaults: { model: 'odd:m' }, journal }).run(agentOnce({ tools: [counted('note')] }), undefined);
      const usages: unknown[] = [];
      handle.on('turn:end', (event) => usages.push(event.usage));
      const result = completed(await handle.result);
      const turns = (await journal.load(handle.runId)).flatMap((e) => (e.type === 'turn' ? [e.response] : []));
      h.expect(turns.map((r) => r.usage)).toEqual([undefined, { inputTokens: 0, outputTokens: 2 }]);
      h.expect(Object.is(turns[1]?.usage?.inputTokens, 0)).toBe(true);
      h.expect(usages).toEqual([undefined, { inputTokens: 0, outputTokens: 2 }]);
      h.expect(Object.keys(turns[0]?.toolCalls[0] ?? {})).toEqual(['id', 'name']);
      // The engine's own frozen copy: the adapter's object is neither kept nor frozen.
      const assistant = result.history.find((m) => m.role === 'assistant');
      h.expect(assistant?.role === 'assistant' && Object.isFrozen(assistant.toolCalls[0])).toBe(true);
      h.expect(turns[0]).not.toBe(given[0]);
      h.expect(Object.isFrozen(given[0])).toBe(false);
      const refused = await runOnce({ adapters: [answering({ text: '', toolCalls: [{ id: 'c', name: 'note', input: cyclic }] })], defaults: { model: 'odd:m' } });
      h.expect(failed(refused, 'model.failed').message).toMatch(/^model odd:m failed: /);
    });

    for (const [ref, message] of [
      ['no-colon', `model "no-colon" is not of the form 'adapterId:model'`],
      [':m', `model ":m" is not of the form 'adapterId:model'`],
      ['nope:m', 'no model adapter has id "nope" (adapters: scripted)'],
    ] as const) {
      h.it(`model ${JSON.stringify(ref)} is refused before any call: ${message}`, async () => {
        const model = scripted(['never']);
        const outcome = await runOnce({ adapters: [model], defaults: { model: ref } });
        h.expect(failed(outcome, ref === 'nope:m' ? 'model.unknown_adapter' : 'config.invalid_value').message).toBe(message);
        h.expect(model.calls).toBe(0);
      });
    }
  });

  h.describe('engine: abort', () => {
    h.it("the run's signal reaches the model call, and the run settles failed with run.aborted", async () => {
      const controller = new AbortController();
      const seen: AbortSignal[] = [];
      const hanging: ModelAdapter = {
        id: 'hang',
        generate: (_request, signal) =>
          new Promise((_resolve, reject) => {
            seen.push(signal);
            signal.addEventListener('abort', () => reject(new Error('cancelled by the engine')), { once: true });
            controller.abort();
          }),
      };
      const outcome = await createEngine({ adapters: [hanging], defaults: { model: 'hang:m' } }).run(agentOnce(), undefined, { signal: controller.signal }).result;
      failed(outcome, 'run.aborted');
      h.expect(seen.map((signal) => signal.aborted)).toEqual([true]);
    });

    h.it("a settled run aborts the signal its tools got, with run.aborted naming the status, and leaves the runtime's stack limit as it was", async () => {
      const errors = Error as { stackTraceLimit?: unknown };
      const before = errors.stackTraceLimit;
      const signals: AbortSignal[] = [];
      const keep = tool({ name: 'keep', description: 'keeps its signal', parameters: ANY, execute: (_input: unknown, context) => (signals.push(context.signal), 'kept') });
      const outcome = await runOnce({ adapters: [scripted([{ toolCalls: [{ id: 'c', name: 'keep', input: {} }] }, 'done'])], defaults: { model: 'scripted:m' } }, { tools: [keep] });
      completed(outcome);
      h.expect(signals).toHaveLength(1);
      h.expect(signals[0]?.aborted).toBe(true);
      const reason: unknown = signals[0]?.reason;
      h.expect((reason as RulvarError).code).toBe('run.aborted');
      h.expect((reason as RulvarError).message).toMatch(/^run .+ settled completed$/);
      h.expect(errors.stackTraceLimit).toBe(before);
    });

    h.it('an already aborted signal settles the run before any model call or journal write', async () => {
      const model = scripted(['never']);
      const journal = memoryJournal();
      const engine = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m' } });
      const outcome = await engine.run(agentOnce(), undefined, { runId: 'aborted', signal: AbortSignal.abort() }).result;
      failed(outcome, 'run.aborted');
      h.expect(model.calls).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 10)); // anything started late would have written by now
      h.expect(await journal.load('aborted')).toEqual([]);
    });
  });

  h.describe('engine: model retries', () => {
    const flaky = (failures: number, error: () => unknown) => {
      let calls = 0;
      const adapter: ModelAdapter & { readonly calls: number } = {
        id: 'flaky',
        get calls() {
          return calls;
        },
        async generate() {
          calls += 1;
          if (calls <= failures) throw error();
          return { text: 'ok', toolCalls: [], stopReason: 'end' };
        },
      };
      return adapter;
    };
    const overloaded = () => Object.assign(new Error('overloaded'), { retryable: true });

    h.it('a retryable error is retried until the model answers', async () => {
      const adapter = flaky(2, overloaded);
      h.expect(completed(await runOnce({ adapters: [adapter], defaults: { model: 'flaky:m', retry: FAST } })).text).toBe('ok');
      h.expect(adapter.calls).toBe(3);
    });

    // The engine caps maxRetries at 10 (model-call.ts): a run must end whatever the host asks.
    h.it('retries are bounded: 1 + maxRetries calls, then model.failed', async () => {
      for (const [retry, calls] of [[FAST, 3], [{ ...FAST, maxRetries: 4 }, 5], [{ ...FAST, maxRetries: 0 }, 1], [{ baseDelayMs: 0, maxRetries: 1000 }, 11]] as const) {
        const adapter = flaky(Infinity, overloaded);
        const error = failed(await runOnce({ adapters: [adapter], defaults: { model: 'flaky:m', retry } }), 'model.failed');
        h.expect(error.message).toMatch(/overloaded/);
        h.expect(adapter.calls).toBe(calls);
      }
    });

    h.it('an adapter that throws instead of rejecting is read the same: retried when retryable, else model.failed', async () => {
      let calls = 0;
      const throwing = (retryable: boolean): ModelAdapter => ({
        id: 'sync',
        generate() {
          calls += 1;
          if (calls === 1 || !retryable) throw Object.assign(new Error('thrown, not rejected'), { retryable });
          return Promise.resolve({ text: 'answered', toolCalls: [], stopReason: 'end' as const });
        },
      });
      h.expect(completed(await runOnce({ adapters: [throwing(true)], defaults: { model: 'sync:m', retry: FAST } })).text).toBe('answered');
      h.expect(calls).toBe(2);
      calls = 0;
      const error = failed(await runOnce({ adapters: [throwing(false)], defaults: { model: 'sync:m', retry: FAST } }), 'model.failed');
      h.expect(error.message).toMatch(/thrown, not rejected/);
      h.expect(calls).toBe(1);
    });

    h.it('any other throw fails at once, naming adapter and model and no secret', async () => {
      const secretive = () => Object.assign(new Error('bad request'), { status: 400, headers: { authorization: 'Bearer sk-secret' }, retryable: 'yes' });
      const adapter = flaky(Infinity, secretive);
      const outcome = await runOnce({ adapters: [adapter], defaults: { model: 'flaky:some-model', retry: FAST } });
      const error = failed(outcome, 'model.failed');
      h.expect(adapter.calls).toBe(1);
      h.expect(error.message).toMatch(/flaky:some-model.*bad request/);
      h.expect(String(error.cause)).toMatch(/bad request/);
      for (const text of [JSON.stringify(outcome), JSON.stringify(error.cause), String(error.cause), error.message]) h.expect(text).not.toMatch(/sk-secret/);
    });
  });

  h.describe('engine: routing and profiles', () => {
    h.it('routes on the first colon; the rest is request.model', async () => {
      const model = scripted(['hi']);
      const bystander = scripted(['no']);
      const other = { id: 'other', generate: bystander.generate.bind(bystander) };
      completed(await runOnce({ adapters: [other, model] }, { model: 'scripted:b:c' }));
      h.expect(model.requests.map((r) => r.model)).toEqual(['b:c']);
      h.expect(bystander.calls).toBe(0);
    });

    h.it('a profile\'s tools, system and permissions apply; call options replace its tools', async () => {
      const read = counted('read_it');
      const write = counted('write_it');
      const spare = counted('spare');
      const profiles = { reviewer: { tools: [read, write], system: 'review only', permissions: { deny: [{ tool: 'write_it' }] } } };
      const model = scripted([{ toolCalls: [{ name: 'write_it', input: {} }, { name: 'read_it', input: {} }] }, 'reviewed']);
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m', profiles } }, { agentType: 'reviewer' }));
      h.expect(model.requests[0]?.system).toBe('review only');
      h.expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(['read_it', 'write_it']);
      h.expect(toolMessage(result.history[2]).map((r) => r.reason ?? 'ok')).toEqual(['denied', 'ok']);
      h.expect([runsOf(read).length, runsOf(write).length]).toEqual([1, 0]);
      const again = scripted(['x']);
      completed(await runOnce({ adapters: [again], defaults: { model: 'scripted:m', profiles } }, { agentType: 'reviewer', tools: [spare] }));
      h.expect(again.requests[0]?.tools.map((t) => t.name)).toEqual(['spare']);
    });

    h.it('deny rules of engine, profile and call all apply', async () => {
      const tools = ['a', 'b', 'c', 'd'].map((name) => counted(name));
      const model = scripted([{ toolCalls: tools.map((t) => ({ name: t.name, input: {} })) }, 'done']);
      const engine = createEngine({
        adapters: [model],
        defaults: { model: 'scripted:m', permissions: { deny: [{ tool: 'a' }] }, profiles: { p: { permissions: { deny: [{ tool: 'b' }] } } } },
      });
      const handle = engine.run(agentOnce({ agentType: 'p', tools, permissions: { deny: [{ tool: 'c' }] } }), undefined);
      const seen = record(handle);
      completed(await handle.result);
      const ends = seen.filter((e) => e.name === 'tool:end').map((e) => e.event['audit']);
      h.expect(ends).toMatchObject([{ verdict: 'deny', rule: { tool: 'a' } }, { verdict: 'deny', rule: { tool: 'b' } }, { verdict: 'deny', rule: { tool: 'c' } }, { verdict: 'allow' }]);
      h.expect(tools.map((t) => runsOf(t).length)).toEqual([0, 0, 0, 1]);
    });

    h.it('a registered toolset is used by name', async () => {
      const kit = [counted('hammer'), counted('saw')];
      const model = scripted(['built']);
      const result = completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m', toolsets: { kit } } }, { tools: ['kit'] }));
      h.expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(['hammer', 'saw']);
      h.expect(result.toolsetHash).toBe((await resolveToolset(kit)).toolsetHash);
    });
  });

  h.describe('engine: refusals', () => {
    const refusedBeforeAnyCall = async (defaults: NonNullable<EngineOptions['defaults']>, call: AgentOptions, code: string) => {
      const model = scripted(['never']);
      const error = failed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m', ...defaults } }, call), code);
      h.expect(h.lib.ConfigError.is(error)).toBe(true);
      h.expect(model.calls).toBe(0);
      return error;
    };

    h.it('model.unknown_adapter, agent.unknown_type and toolset.unknown_name come before any model call', async () => {
      h.expect((await refusedBeforeAnyCall({}, { model: 'nope:x' }, 'model.unknown_adapter')).message).toMatch(/"nope"/);
      h.expect((await refusedBeforeAnyCall({ profiles: { known: {} } }, { agentType: 'ghost' }, 'agent.unknown_type')).message).toMatch(/"ghost"/);
      h.expect((await refusedBeforeAnyCall({ toolsets: { kit: [] } }, { tools: ['nokit'] }, 'toolset.unknown_name')).message).toMatch(/nokit/);
    });

    h.it('a pinned profile whose toolset changed is refused before any model call; a matching pin runs', async () => {
      const pinned = await attestToolset(await resolveToolset([counted('old')]));
      await refusedBeforeAnyCall({ profiles: { p: { tools: [counted('new')], toolsetAttestation: pinned } } }, { agentType: 'p' }, 'toolset.attestation_mismatch');
      const model = scripted(['fine']);
      completed(await runOnce({ adapters: [model], defaults: { model: 'scripted:m', profiles: { p: { tools: [counted('old')], toolsetAttestation: pinned } } } }, { agentType: 'p' }));
    });

    h.it('a thrown Error is workflow.failed with its message; a thrown RulvarError keeps its code', async () => {
      const engine = createEngine({ adapters: [scripted([])] });
      const plain = failed(await engine.run(defineWorkflow({ name: 'w' }, () => Promise.reject(new Error('kaboom'))), undefined).result, 'workflow.failed');
      h.expect(plain.message).toMatch(/kaboom/);
      const own = new h.lib.ConfigError('config.invalid_value', 'my own refusal');
      h.expect(failed(await engine.run(defineWorkflow({ name: 'w' }, () => Promise.reject(own)), undefined).result, 'config.invalid_value')).toBe(own);
    });

    h.it('a second step with the same name is step.duplicate_name', async () => {
      let ran = 0;
      const workflow = defineWorkflow({ name: 'w' }, async (ctx) => {
        await ctx.step('s', () => (ran += 1));
        return ctx.step('s', () => (ran += 1));
      });
      failed(await createEngine({ adapters: [scripted([])] }).run(workflow, undefined).result, 'step.duplicate_name');
      h.expect(ran).toBe(1);
    });

    h.it('run refuses a runId the journal already holds, without running the body', async () => {
      let ran = 0;
      const workflow = defineWorkflow({ name: 'w' }, async () => (ran += 1));
      const engine = createEngine({ adapters: [scripted([])], journal: memoryJournal() });
      h.expect(await engine.run(workflow, undefined, { runId: 'r1' }).result).toEqual({ status: 'completed', value: 1 });
      const handle = engine.run(workflow, undefined, { runId: 'r1' });
      h.expect(handle.runId).toBe('r1');
      h.expect(failed(await handle.result, 'journal.run_exists').message).toMatch(/r1/);
      h.expect(ran).toBe(1);
    });

    h.it('createEngine without adapters, or with two of one id, throws a ConfigError at once', () => {
      const cases: readonly [unknown, string][] = [
        [{}, 'config.missing_key'],
        [{ adapters: [scripted([]), scripted([])] }, 'config.invalid_value'],
      ];
      for (const [options, code] of cases) {
        let thrown: unknown;
        try {
          createEngine(options as EngineOptions);
        } catch (error) {
          thrown = error;
        }
        h.expect(h.lib.ConfigError.is(thrown)).toBe(true);
        h.expect((thrown as { code?: string }).code).toBe(code);
      }
    });
  });

  h.describe('engine: events', () => {
    h.it('a run announces its agent, every turn with usage, every call (denied too) and its end', async () => {
      const ok = counted('ok');
      const usage = { inputTokens: 10, outputTokens: 2 };
      const model = scripted([{ toolCalls: [{ name: 'ok', input: { x: 1 } }, { name: 'ok', input: { x: 2 } }], usage }, 'done']);
      const denyTwo = { hooks: [(call: { input: unknown }) => ((call.input as { x: number }).x === 2 ? 'deny' : undefined)] };
      const handle = createEngine({ adapters: [model], defaults: { model: 'scripted:m' } }).run(agentOnce({ tools: [ok], permissions: denyTwo }), undefined);
      const seen = record(handle);
      const outcome = await handle.result;
      completed(outcome);
      h.expect(seen.map((e) => e.name)).toEqual(['agent:start', 'turn:end', 'tool:start', 'tool:end', 'tool:start', 'tool:end', 'turn:end', 'run:end']);
      const [start, turn0, start1, end1, start2, end2, turn1, runEnd] = seen.map((e) => e.event);
      const agentKey = start?.['agentKey'];
      h.expect(typeof agentKey).toBe('string');
      h.expect(start).toMatchObject({ runId: handle.runId, toolsetHash: (await resolveToolset([ok])).toolsetHash });
      h.expect(turn0).toEqual({ runId: handle.runId, agentKey, turn: 0, usage });
      h.expect(turn1).toEqual({ runId: handle.runId, agentKey, turn: 1 });
      // Keys absent, not present as undefined: a listener serialising the event sees no null.
      h.expect([Object.hasOwn(turn1 ?? {}, 'usage'), Object.hasOwn(start ?? {}, 'agentType'), start?.['model']]).toEqual([false, false, 'scripted:m']);
      // A call starts with the input the model gave, before any hook decides (the second is denied).
      h.expect(start1).toEqual({ runId: handle.runId, agentKey, callId: 'scripted-0-0', toolName: 'ok', input: { x: 1 } });
      h.expect(start2).toEqual({ runId: handle.runId, agentKey, callId: 'scripted-0-1', toolName: 'ok', input: { x: 2 } });
      h.expect(Object.keys(end1 ?? {}).sort()).toEqual(['agentKey', 'audit', 'callId', 'input', 'result', 'runId', 'toolName']);
      h.expect(end1).toMatchObject({
        runId: handle.runId,
        agentKey,
        callId: 'scripted-0-0',
        toolName: 'ok',
        input: { x: 1 },
        audit: { verdict: 'allow', layer: 'default' },
      });
      h.expect(end1?.['result']).toEqual({ callId: 'scripted-0-0', toolName: 'ok', isError: false, output: 'ok ran' });
      h.expect(end2).toMatchObject({ agentKey, callId: 'scripted-0-1', result: { isError: true, reason: 'denied' }, audit: { verdict: 'deny', layer: 'hook' } });
      h.expect(runEnd).toEqual({ runId: handle.runId, outcome });
    });

    h.it('an agent of a profile announces its type, in agent:start and in the journal; its end counts its turns', async () => {
      const journal = h.lib.memoryJournal();
      const model = scripted(['done']);
      const engine = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m', profiles: { writer: {} } } });
      const handle = engine.run(agentOnce({ agentType: 'writer' }), undefined);
      const seen = record(handle);
      completed(await handle.result);
      h.expect(seen[0]).toMatchObject({ name: 'agent:start', event: { agentType: 'writer', model: 'scripted:m' } });
      const entries = await journal.load(handle.runId);
      h.expect(entries.find((e) => e.type === 'spawn')).toMatchObject({ agentType: 'writer', model: 'scripted:m' });
      h.expect(entries.find((e) => e.type === 'agent:end')).toMatchObject({ text: 'done', turns: 1 });
    });

    h.it('listeners that throw or reject change nothing and leave no unhandled rejection', async () => {
      const proc = (globalThis as { process?: { on(e: string, l: (r: unknown) => void): void; off(e: string, l: (r: unknown) => void): void } }).process;
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      if (h.runtime === 'node') proc?.on('unhandledRejection', onUnhandled);
      try {
        const model = scripted([{ toolCalls: [{ name: 'ok', input: {} }] }, 'done']);
        const handle = createEngine({ adapters: [model], defaults: { model: 'scripted:m' } }).run(agentOnce({ tools: [counted('ok')] }), undefined);
        for (const name of EVENT_NAMES) {
          handle.on(name, () => {
            throw new Error(`sync ${name}`);
          });
          handle.on(name, () => Promise.reject(new Error(`async ${name}`)));
        }
        const seen = record(handle);
        h.expect(completed(await handle.result).text).toBe('done');
        h.expect(seen.map((e) => e.name)).toContain('run:end');
        await macrotask();
        await macrotask();
        h.expect(unhandled).toEqual([]);
      } finally {
        if (h.runtime === 'node') proc?.off('unhandledRejection', onUnhandled);
      }
    });
  });

  h.describe('engine: ctx.step', () => {
    h.it('runs its body once, journals the value and returns it as a replay would see it', async () => {
      let ran = 0;
      let seen: unknown;
      let journaledFirst = false;
      // Appends that land a macrotask late: a write the engine does not wait for shows.
      const inner = memoryJournal();
      const journal = { load: (id: string) => inner.load(id), append: async (...args: Parameters<typeof inner.append>) => (await macrotask(), inner.append(...args)) };
      const workflow = defineWorkflow({ name: 'w' }, async (ctx) => {
        seen = await ctx.step('fetch', () => ((ran += 1), { n: 1, list: ['a'], at: new Date(0) }));
        journaledFirst = (await journal.load(ctx.runId)).some((e) => e.type === 'step');
        return 'ok';
      });
      const handle = createEngine({ adapters: [scripted([])], journal }).run(workflow, undefined);
      h.expect(await handle.result).toEqual({ status: 'completed', value: 'ok' });
      h.expect(ran).toBe(1);
      h.expect(journaledFirst).toBe(true);
      // A Date would come back from the journal as its string, so the live run gets that too.
      const value = { n: 1, list: ['a'], at: '1970-01-01T00:00:00.000Z' };
      h.expect(seen).toEqual(value);
      h.expect((await journal.load(handle.runId)).filter((e) => e.type === 'step')).toEqual([{ v: 1, type: 'step', name: 'fetch', value }]);
    });

    h.it('a value JSON cannot hold fails the run typed and journals nothing for it', async () => {
      const journal = memoryJournal();
      let after = false;
      const workflow = defineWorkflow({ name: 'w' }, async (ctx) => {
        await ctx.step('big', () => 10n);
        after = true;
      });
      const handle = createEngine({ adapters: [scripted([])], journal }).run(workflow, undefined);
      h.expect(failed(await handle.result, 'config.invalid_value').message).toMatch(/step "big"/);
      h.expect(after).toBe(false);
      h.expect((await journal.load(handle.runId)).some((e) => e.type === 'step')).toBe(false);
    });
  });
}
