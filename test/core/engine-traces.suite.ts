/**
 * Traces (spec/runtime.md, "Streaming, progress, traces"): `createEngine({ tracer })` emits a
 * span per run, agent, model turn and tool call, parented so, with the GenAI semantic
 * conventions' names, kinds and attributes and the library's own; a suspension shows on the
 * spans, a resume links to the run's first span; content only when asked, never a secret;
 * a tracer that throws breaks nothing. Checked through the OpenTelemetry SDK's in-memory
 * exporter, in every runtime.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { EngineOptions, ModelAdapter, ModelRequest } from '../../src/core/index.js';
import { GEN_AI_ATTRIBUTES as G, MAX_TRACE_CONTENT_CHARS, MAX_TRACE_TEXT_CHARS, RULVAR_ATTRIBUTES as R, RULVAR_EVENTS as E, runSpanContext } from '../../src/edge/otel.js';
import { scripted, type Script } from '../../src/testing/index.js';
import { echo } from '../fixtures/wire-rules.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';
import { inProcessWire } from './wire.js';

const MODEL = 'scripted:m';
const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

/** A tracer over the SDK's in-memory exporter: every ended span is in `spans()`. */
function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('rulvar-test'), spans: () => exporter.getFinishedSpans() };
}

/** Everything a span carries, as text: to look for what must not be there. */
const dump = (spans: readonly ReadableSpan[]) => JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })), status: s.status })));

export function engineTracesSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, secretRedactor, mcp } = h.lib;
  const expect = h.expect;

  const lookup = tool({ name: 'lookup', description: 'looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } }, execute: (input: unknown) => ({ found: (input as { q?: string }).q ?? null }) });
  const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: () => 'paid' });
  const researching = (prompt = 'find it') => defineWorkflow({ name: 'research' }, async (ctx) => (await ctx.agent(prompt, { agentType: 'researcher', tools: [lookup, pay] })).text);
  const engineWith = (script: Script | ModelAdapter, options: Partial<EngineOptions> = {}) =>
    createEngine({ adapters: [typeof script === 'object' && !Array.isArray(script) ? (script as ModelAdapter) : scripted(script as Script)], defaults: { model: MODEL, profiles: { researcher: {} } }, ...options });
  const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
  const one = (spans: readonly ReadableSpan[], name: string) => {
    const found = byName(spans, name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0] as ReadableSpan;
  };

  h.describe('engine: traces', () => {
    h.it('a run, its agent, each model turn and each tool call are spans, parented run → agent → turn and call, with GenAI and rulvar attributes', async () => {
      const { tracer, spans } = recorder();
      const script = [{ toolCalls: [{ id: 'call-1', name: 'lookup', input: { q: 'x' } }], usage: { inputTokens: 11, outputTokens: 3 } }, { text: 'found', usage: { inputTokens: 20, outputTokens: 5 } }];
      let toolsetHash = '';
      const wf = defineWorkflow({ name: 'research' }, async (ctx) => {
        const result = await ctx.agent('find it', { agentType: 'researcher', tools: [lookup] });
        toolsetHash = result.toolsetHash;
        return result.text;
      });
      const handle = engineWith(script, { tracer }).run(wf, null);
      expect(await handle.result).toEqual({ status: 'completed', value: 'found' });
      const all = spans();
      const run = one(all, 'invoke_workflow research');
      const agent = one(all, 'invoke_agent researcher');
      const turns = byName(all, 'chat m');
      const call = one(all, 'execute_tool lookup');
      expect(all).toHaveLength(5);
      expect(new Set(all.map((s) => s.spanContext().traceId)).size).toBe(1);
      expect(run.parentSpanContext).toBeUndefined();
      expect(agent.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      for (const child of [...turns, call]) expect(child.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
      expect([run.kind, agent.kind, call.kind, ...turns.map((t) => t.kind)]).toEqual([INTERNAL, INTERNAL, INTERNAL, CLIENT, CLIENT]);
      expect(run.attributes).toMatchObject({ [G.OPERATION_NAME]: 'invoke_workflow', [G.WORKFLOW_NAME]: 'research', [R.RUN_ID]: handle.runId, [R.RESUMED]: false, [R.OUTCOME]: 'completed' });
      expect(agent.attributes).toMatchObject({ [G.OPERATION_NAME]: 'invoke_agent', [G.AGENT_NAME]: 'researcher', [G.PROVIDER_NAME]: 'scripted', [G.REQUEST_MODEL]: 'm', [R.TOOLSET_HASH]: toolsetHash, [R.RESUMED]: false });
      expect(agent.attributes[G.AGENT_ID]).toMatch(/^[0-9a-f]{64}-0$/);
      expect(turns).toHaveLength(2);
      expect(turns[0]?.attributes).toMatchObject({ [G.OPERATION_NAME]: 'chat', [G.PROVIDER_NAME]: 'scripted', [G.REQUEST_MODEL]: 'm', [G.USAGE_INPUT_TOKENS]: 11, [G.USAGE_OUTPUT_TOKENS]: 3, [G.RESPONSE_FINISH_REASONS]: ['tool_call'], [R.TURN]: 0 });
      expect(turns[1]?.attributes).toMatchObject({ [G.USAGE_INPUT_TOKENS]: 20, [G.USAGE_OUTPUT_TOKENS]: 5, [G.RESPONSE_FINISH_REASONS]: ['stop'], [R.TURN]: 1 });
      expect(call.attributes).toMatchObject({ [G.OPERATION_NAME]: 'execute_tool', [G.TOOL_NAME]: 'lookup', [G.TOOL_CALL_ID]: 'call-1', [G.TOOL_TYPE]: 'function', [R.VERDICT]: 'allow', [R.LAYER]: 'default' });
      // Children end before their parents: every span is exported by the time the result is.
      expect(all.map((s) => s.name).indexOf('invoke_workflow research')).toBe(4);
    });

    h.it('a suspension is an event on the run span and on the parked agent and call; the resume links to the run span the journal kept', async () => {
      const journal = memoryJournal();
      const first = recorder();
      const script = [{ toolCalls: [{ id: 'call-p', name: 'pay', input: {} }] }, 'done'];
      const wf = researching();
      const outcome = await engineWith(script, { tracer: first.tracer, journal }).run(wf, null).result;
      if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${outcome.status}`);
      const key = outcome.approvals[0]?.key as string;
      const suspendedSpans = first.spans();
      const run = one(suspendedSpans, 'invoke_workflow research');
      const parked = one(suspendedSpans, 'execute_tool pay');
      expect(run.attributes[R.OUTCOME]).toBe('suspended');
      for (const span of [run, one(suspendedSpans, 'invoke_agent researcher'), parked]) {
        expect(span.events.find((e) => e.name === E.SUSPENDED)?.attributes).toEqual({ [R.APPROVAL_KEY]: [key] });
        expect(span.status.code).not.toBe(ERROR);
      }
      expect(parked.attributes[R.APPROVAL_KEY]).toBe(key);
      expect(parked.attributes).not.toHaveProperty(R.RESUMED);
      expect(parked.events.map((e) => e.name)).toEqual([E.APPROVAL_PENDING, E.SUSPENDED]);
      expect(parked.events[0]?.attributes).toEqual({ [R.APPROVAL_KEY]: key });
      // The journal keeps the run span's ids, and nothing else of the trace.
      const kept = await runSpanContext(journal, run.spanContext().traceId === '' ? 'none' : (outcome.approvals[0]?.runId as string));
      expect(kept).toEqual({ traceId: run.spanContext().traceId, spanId: run.spanContext().spanId, traceFlags: run.spanContext().traceFlags });
      expect(JSON.stringify((await journal.load(outcome.approvals[0]?.runId as string))[0])).not.toMatch(/traceState|isRemote/);

      const second = recorder();
      const engine = engineWith(script, { tracer: second.tracer, journal });
      await engine.resolveExternal(outcome.approvals[0]?.runId as string, key, 'allow');
      expect(await engine.resume(outcome.approvals[0]?.runId as string, wf).result).toEqual({ status: 'completed', value: 'done' });
      const resumed = second.spans();
      const again = one(resumed, 'invoke_workflow research');
      expect(again.attributes).toMatchObject({ [R.RESUMED]: true, [R.OUTCOME]: 'completed' });
      expect(again.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId }))).toEqual([{ traceId: run.spanContext().traceId, spanId: run.spanContext().spanId }]);
      expect(one(resumed, 'invoke_agent researcher').attributes[R.RESUMED]).toBe(true);
      const approved = one(resumed, 'execute_tool pay');
      expect(approved.attributes).toMatchObject({ [R.APPROVAL_KEY]: key, [R.RESUMED]: true, [R.VERDICT]: 'ask' });
      expect(approved.events.map((e) => [e.name, e.attributes])).toEqual([[E.APPROVAL_RESOLVED, { [R.DECISION]: 'allow', [R.RESOLVED_BY]: 'external' }]]);
      // The replayed turn is not requested again, so it has no span: only the turn after the approval does.
      expect(byName(resumed, 'chat m')).toHaveLength(1);
    });

    h.it('records no input or output unless traceContent is true, and then the GenAI content attributes', async () => {
      const script = [{ toolCalls: [{ id: 'c', name: 'lookup', input: { q: 'ARGUMENT-TEXT' } }] }, 'ANSWER-TEXT'];
      const plain = recorder();
      await engineWith(script, { tracer: plain.tracer }).run(researching('PROMPT-TEXT'), null).result;
      const quiet = dump(plain.spans());
      for (const text of ['PROMPT-TEXT', 'ARGUMENT-TEXT', 'ANSWER-TEXT', G.INPUT_MESSAGES, G.OUTPUT_MESSAGES, G.TOOL_CALL_ARGUMENTS, G.TOOL_CALL_RESULT]) expect(quiet).not.toContain(text);

      const full = recorder();
      await engineWith(script, { tracer: full.tracer, traceContent: true }).run(researching('PROMPT-TEXT'), null).result;
      const [firstTurn, secondTurn] = byName(full.spans(), 'chat m');
      expect(JSON.parse(firstTurn?.attributes[G.INPUT_MESSAGES] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'PROMPT-TEXT' }] }]);
      expect(JSON.parse(secondTurn?.attributes[G.OUTPUT_MESSAGES] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'ANSWER-TEXT' }], finish_reason: 'stop' }]);
      expect(JSON.parse(secondTurn?.attributes[G.INPUT_MESSAGES] as string)[2]).toEqual({ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c', response: { found: 'ARGUMENT-TEXT' } }] });
      const call = one(full.spans(), 'execute_tool lookup');
      expect(JSON.parse(call.attributes[G.TOOL_CALL_ARGUMENTS] as string)).toEqual({ q: 'ARGUMENT-TEXT' });
      expect(JSON.parse(call.attributes[G.TOOL_CALL_RESULT] as string)).toEqual({ found: 'ARGUMENT-TEXT' });
    });

    h.it('no secret reaches any span, recorded content included, when it is in a model answer, a tool input, output or error, or a model error', async () => {
      const SECRET = 'sk-trace-secret-0123456789abcdef';
      const leak = tool({ name: 'leak', description: 'leaks', parameters: { type: 'object' }, execute: () => ({ echoed: `key=${SECRET}` }) });
      const fail = tool({ name: 'fail', description: 'fails', parameters: { type: 'object' }, execute: () => { throw new Error(`denied for ${SECRET}`); } });
      const inner = scripted([{ text: `using ${SECRET}`, toolCalls: [{ id: `id-${SECRET}`, name: 'leak', input: { key: SECRET } }, { name: 'fail', input: { also: SECRET } }] }, `the key is ${SECRET}`]);
      const model: ModelAdapter = { id: 'scripted', generate: (request, signal) => inner.generate(request, signal), redact: secretRedactor([SECRET]) };
      const { tracer, spans } = recorder();
      const wf = defineWorkflow({ name: 'leaky' }, async (ctx) => (await ctx.agent(`prompt with ${SECRET}`, { tools: [leak, fail] })).text);
      expect((await engineWith(model, { tracer, traceContent: true }).run(wf, null).result).status).toBe('completed');
      const broken: ModelAdapter = { id: 'scripted', generate: () => Promise.reject(new Error(`401 for key ${SECRET}`)), redact: secretRedactor([SECRET]) };
      expect((await engineWith(broken, { tracer, traceContent: true }).run(wf, null).result).status).toBe('failed');
      const text = dump(spans());
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SECRET.slice(4, 24));
      // Not vacuous: each place held the secret, and holds the marker now.
      const failed = one(spans(), 'execute_tool fail');
      expect(failed.status).toMatchObject({ code: ERROR });
      expect(failed.status.message).toContain('[redacted]');
      expect(failed.attributes[G.ERROR_TYPE]).toBe('execution');
      expect(one(spans(), 'execute_tool leak').attributes[G.TOOL_CALL_RESULT]).toContain('[redacted]');
      const runs = byName(spans(), 'invoke_workflow leaky');
      expect(runs[1]?.status.message).toContain('[redacted]');
      expect(runs[1]?.attributes[G.ERROR_TYPE]).toBe('model.failed');
    });

    h.it('an adapter whose redact cannot be read or is no function records no content at all, and the engine still starts', async () => {
      const SECRET = 'sk-trace-unusable-0123456789abcdef';
      const wf = defineWorkflow({ name: 'unusable' }, async (ctx) => (await ctx.agent(`prompt with ${SECRET}`)).text);
      for (const redact of [{ get: () => { throw new Error('getter'); } }, { value: 'not a function' }]) {
        const inner = scripted([`the key is ${SECRET}`]);
        const model = Object.defineProperty({ id: 'scripted', generate: (request: ModelRequest, signal: AbortSignal) => inner.generate(request, signal) }, 'redact', redact) as ModelAdapter;
        const { tracer, spans } = recorder();
        await engineWith(model, { tracer, traceContent: true }).run(wf, null).result;
        const text = dump(spans());
        expect(text).not.toContain(SECRET.slice(4, 24));
        expect(text).toContain('[not recorded: redaction failed]');
      }
    });

    h.it('no header secret an MCP server echoes, in a result or a failed call, reaches a span', async () => {
      const TOKEN = 'sk-live-trace-9f8e7d6c5b4a3210ffee';
      const served = await inProcessWire().serve('workbench', {
        rules: [
          { on: 'tools/call', nth: [1], reply: echo('a successful result, text and structured', 'JSON escaped inside JSON') },
          { on: 'tools/call', nth: [2], reply: echo('a 500 body to tools/call', 'whole') },
        ],
      });
      const notes = mcp({ transport: 'streamable-http', url: served.url, http: { ...served.http, headers: () => ({ authorization: `Bearer ${TOKEN}` }) } });
      try {
        const { tracer, spans } = recorder();
        const script = [{ toolCalls: [{ name: 'list_notes', input: {} }] }, { toolCalls: [{ name: 'list_notes', input: {} }] }, 'done'];
        const wf = defineWorkflow({ name: 'echoes' }, async (ctx) => (await ctx.agent('list', { tools: [notes] })).text);
        expect((await engineWith(script, { tracer, traceContent: true }).run(wf, null).result).status).toBe('completed');
        const calls = byName(spans(), 'execute_tool list_notes');
        expect(calls).toHaveLength(2);
        const text = dump(spans()).toLowerCase();
        for (let i = 0; i + 16 <= TOKEN.length; i += 1) expect(text).not.toContain(TOKEN.slice(i, i + 16));
        expect(text).toContain('[redacted]');
      } finally {
        await notes.close();
        await served.close();
      }
    });

    h.it('bounds what a hostile answer puts in a span: names, ids and recorded content are cut', async () => {
      const huge = 'x'.repeat(200_000);
      const big = tool({ name: 'big', description: 'big', parameters: { type: 'object' }, execute: () => 'y'.repeat(400_000) });
      const { tracer, spans } = recorder();
      const wf = defineWorkflow({ name: 'hostile' }, async (ctx) => (await ctx.agent(huge, { tools: [big] })).text);
      const script = [{ toolCalls: [{ id: huge, name: 'big', input: {} }, { id: 'c2', name: huge, input: { q: huge } }] }, huge];
      expect((await engineWith(script, { tracer, traceContent: true }).run(wf, null).result).status).toBe('completed');
      const all = spans();
      expect(all.length).toBeGreaterThan(4);
      for (const span of all) {
        expect(span.name.length).toBeLessThanOrEqual(MAX_TRACE_TEXT_CHARS + 10);
        for (const [key, value] of Object.entries(span.attributes)) {
          const limit = key === G.INPUT_MESSAGES || key === G.OUTPUT_MESSAGES || key === G.TOOL_CALL_ARGUMENTS || key === G.TOOL_CALL_RESULT ? MAX_TRACE_CONTENT_CHARS : MAX_TRACE_TEXT_CHARS;
          expect([key, String(value).length <= limit + 10]).toEqual([key, true]);
        }
        expect((span.status.message ?? '').length).toBeLessThanOrEqual(MAX_TRACE_TEXT_CHARS + 10);
      }
      const result = String(one(all, 'execute_tool big').attributes[G.TOOL_CALL_RESULT]);
      expect([result.length, /^y+…\[cut\]$/.test(result)]).toEqual([MAX_TRACE_CONTENT_CHARS + '…[cut]'.length, true]);
    });

    h.it('a tracer that throws, or gives no spans, or spans whose every method throws, changes nothing of the run', async () => {
      const throwingSpan = new Proxy({}, { get: () => () => { throw new Error('span broke'); } });
      const tracers = [
        { startSpan: () => { throw new Error('tracer broke'); } },
        { startSpan: () => undefined },
        { startSpan: () => throwingSpan },
        { get startSpan() { return () => { throw new Error('late'); }; } },
        // A span whose ids are no ids: nothing of them is journaled.
        { startSpan: () => ({ spanContext: () => ({ traceId: 'z'.repeat(100_000), spanId: '1', traceFlags: 1 }), setAttribute() {}, addEvent() {}, setStatus() {}, end() {} }) },
      ];
      for (const tracer of tracers) {
        const journal = memoryJournal();
        const script = [{ toolCalls: [{ name: 'lookup', input: { q: 'x' } }] }, 'ok'];
        const handle = engineWith(script, { tracer: tracer as unknown as NonNullable<EngineOptions['tracer']>, journal }).run(researching(), null);
        expect(await handle.result).toEqual({ status: 'completed', value: 'ok' });
        expect((await journal.load(handle.runId))[0]).not.toHaveProperty('trace');
      }
      const suspending = await engineWith([{ toolCalls: [{ name: 'pay', input: {} }] }], { tracer: { startSpan: () => throwingSpan } as unknown as NonNullable<EngineOptions['tracer']> }).run(researching(), null).result;
      expect(suspending.status).toBe('suspended');
      for (const bad of [{}, { startSpan: 'no' }, 42, null, { get startSpan(): never { throw new Error('getter'); } }]) {
        const refused = await expectConfigError(h, () => engineWith(['x'], { tracer: bad as unknown as NonNullable<EngineOptions['tracer']> }), 'config.invalid_value');
        expect(refused).toBe('tracer must be an OpenTelemetry Tracer (an object with startSpan)');
      }
      const refused = await expectConfigError(h, () => engineWith(['x'], { tracer: recorder().tracer, traceContent: 'yes' as unknown as boolean }), 'config.invalid_value');
      expect(refused).toBe('traceContent must be true or false');
    });

    h.it('agents running side by side each parent their own turns and calls', async () => {
      const { tracer, spans } = recorder();
      const model = scripted((request) => (request.messages.length === 1 ? { toolCalls: [{ id: `for-${(request.messages[0] as { text: string }).text}`, name: 'lookup', input: {} }] } : 'ok'));
      const wf = defineWorkflow({ name: 'fan' }, async (ctx) => (await Promise.all(['a', 'b', 'c'].map((p) => ctx.agent(p, { tools: [lookup] })))).map((r) => r.text));
      expect(await engineWith(model, { tracer }).run(wf, null).result).toEqual({ status: 'completed', value: ['ok', 'ok', 'ok'] });
      const all = spans();
      const agents = byName(all, 'invoke_agent agent');
      expect(agents).toHaveLength(3);
      for (const agent of agents) {
        const children = all.filter((s) => s.parentSpanContext?.spanId === agent.spanContext().spanId);
        const calls = children.filter((s) => s.name === 'execute_tool lookup');
        expect([children.length, calls.length]).toEqual([3, 1]);
      }
      // The call id names the agent's prompt, and the agent span's id is its key: each call sits under its own agent.
      const ids = agents.map((a) => String(all.find((s) => s.parentSpanContext?.spanId === a.spanContext().spanId && s.name === 'execute_tool lookup')?.attributes[G.TOOL_CALL_ID]));
      expect(ids.sort()).toEqual(['for-a', 'for-b', 'for-c']);
    });

    h.it('a journal whose run:start holds no span ids, or hostile ones, resumes unlinked', async () => {
      const journal = memoryJournal();
      const wf = researching();
      const first = await engineWith([{ toolCalls: [{ name: 'pay', input: {} }] }, 'done'], { journal }).run(wf, null).result;
      if (first.status !== 'suspended') throw new Error(`expected suspended, got ${first.status}`);
      const runId = first.approvals[0]?.runId as string;
      const entries = await journal.load(runId);
      const hostile = memoryJournal();
      const forged = { ...entries[0], trace: { traceId: 'A'.repeat(32), spanId: '0'.repeat(16), traceFlags: 1e9, extra: 'x'.repeat(10_000) } };
      await hostile.append(runId, [forged as never, ...entries.slice(1)], 0);
      expect(await runSpanContext(hostile, runId)).toBeUndefined();
      for (const store of [journal, hostile]) {
        const { tracer, spans } = recorder();
        const engine = engineWith([{ toolCalls: [{ name: 'pay', input: {} }] }, 'done'], { tracer, journal: store });
        await engine.resolveExternal(runId, first.approvals[0]?.key as string, 'allow');
        expect(await engine.resume(runId, wf).result).toEqual({ status: 'completed', value: 'done' });
        expect(one(spans(), 'invoke_workflow research').links).toEqual([]);
      }
    });

    h.it('a failed model call is an error on its turn, its agent and the run', async () => {
      const { tracer, spans } = recorder();
      const broken: ModelAdapter = { id: 'scripted', generate: () => Promise.reject(new Error('no such model')) };
      expect((await engineWith(broken, { tracer }).run(researching(), null).result).status).toBe('failed');
      const all = spans();
      for (const name of ['chat m', 'invoke_agent researcher', 'invoke_workflow research']) {
        const span = one(all, name);
        expect([name, span.status.code, span.attributes[G.ERROR_TYPE]]).toEqual([name, ERROR, 'model.failed']);
      }
      expect(one(all, 'invoke_workflow research').attributes[R.OUTCOME]).toBe('failed');
    });
  });
}
