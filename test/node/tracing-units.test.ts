/**
 * What the engine's spans record with `traceContent: true` (src/core/engine/tracing.ts),
 * member for member, through @opentelemetry/sdk-trace-base's in-memory exporter: the input
 * messages of each turn in the GenAI conventions' parts, the system instructions, the output
 * message with its finish reason, a tool call's arguments and result, and an error result
 * failing its span with its reason as `error.type` and its output as the status message.
 * Without `traceContent`, none of it; an error result's status then says only that it was one.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createEngine, defineWorkflow, memoryJournal, tool } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';

async function spansOf(traceContent: boolean): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const lookup = tool({ name: 'lookup', description: 'finds', parameters: { type: 'object' }, execute: () => ({ found: 'Ann' }) });
  const broken = tool({ name: 'broken', description: 'fails', parameters: { type: 'object' }, execute: () => { throw new Error('the lookup service is down'); } }); // prettier-ignore
  const model = scripted([
    { text: 'Looking.', toolCalls: [{ id: 'c1', name: 'lookup', input: { q: 'ann' } }, { id: 'c2', name: 'broken', input: {} }], usage: { inputTokens: 10, outputTokens: 4 } },
    'Ann it is.',
  ]);
  const engine = createEngine({ adapters: [model], journal: memoryJournal(), tracer: provider.getTracer('units'), traceContent, defaults: { model: 'scripted:m' } });
  const wf = defineWorkflow({ name: 'find' }, async (ctx) => (await ctx.agent('Find Ann', { tools: [lookup, broken], system: 'Be brief.' })).text);
  expect(await engine.run(wf, null).result).toEqual({ status: 'completed', value: 'Ann it is.' });
  return exporter.getFinishedSpans();
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const parsed = (span: ReadableSpan | undefined, key: string): unknown => {
  const value = span?.attributes[key];
  return typeof value === 'string' ? JSON.parse(value) : value;
};

describe('spans with traceContent: true', () => {
  it('an answer with no text records no text part, as output and as the next turn\'s input', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const lookup = tool({ name: 'lookup', description: 'finds', parameters: { type: 'object' }, execute: () => 'Ann' });
    const model = scripted([{ toolCalls: [{ id: 'c1', name: 'lookup', input: {} }] }, 'done']);
    const engine = createEngine({ adapters: [model], journal: memoryJournal(), tracer: provider.getTracer('units'), traceContent: true, defaults: { model: 'scripted:m' } });
    const wf = defineWorkflow({ name: 'quiet' }, async (ctx) => (await ctx.agent('Find', { tools: [lookup] })).text);
    expect(await engine.run(wf, null).result).toEqual({ status: 'completed', value: 'done' });
    const [first, second] = byName(exporter.getFinishedSpans(), 'chat m');
    const call = { type: 'tool_call', id: 'c1', name: 'lookup', arguments: {} };
    expect(parsed(first, 'gen_ai.output.messages')).toEqual([{ role: 'assistant', parts: [call], finish_reason: 'tool_call' }]);
    expect((parsed(second, 'gen_ai.input.messages') as unknown[])[1]).toEqual({ role: 'assistant', parts: [call] });
  });

  it('each turn records its input messages, the system instructions and its output, in the conventions\' parts', async () => {
    const spans = await spansOf(true);
    const [first, second] = byName(spans, 'chat m');
    expect(parsed(first, 'gen_ai.system_instructions')).toEqual([{ type: 'text', content: 'Be brief.' }]);
    expect(parsed(first, 'gen_ai.input.messages')).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Find Ann' }] }]);
    expect(parsed(first, 'gen_ai.output.messages')).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Looking.' },
          { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { q: 'ann' } },
          { type: 'tool_call', id: 'c2', name: 'broken', arguments: {} },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    expect([first?.attributes['gen_ai.response.finish_reasons'], first?.attributes['gen_ai.usage.input_tokens'], first?.attributes['gen_ai.usage.output_tokens']]).toEqual([['tool_call'], 10, 4]);
    const input = parsed(second, 'gen_ai.input.messages') as { role: string; parts: unknown[] }[];
    expect(input.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(input[2]?.parts).toEqual([
      { type: 'tool_call_response', id: 'c1', response: { found: 'Ann' } },
      { type: 'tool_call_response', id: 'c2', response: expect.stringContaining('the lookup service is down') },
    ]);
    expect(parsed(second, 'gen_ai.output.messages')).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Ann it is.' }], finish_reason: 'stop' }]);
    // No usage reported: no token attributes at all.
    expect(Object.keys(second?.attributes ?? {}).filter((k) => k.startsWith('gen_ai.usage'))).toEqual([]);
  });

  it('a tool call records its arguments and result; an error result fails its span, its reason the error type and its output the message', async () => {
    const spans = await spansOf(true);
    const [ok] = byName(spans, 'execute_tool lookup');
    expect([parsed(ok, 'gen_ai.tool.call.arguments'), parsed(ok, 'gen_ai.tool.call.result'), ok?.status.code]).toEqual([{ q: 'ann' }, { found: 'Ann' }, 0]);
    const [failed] = byName(spans, 'execute_tool broken');
    expect(failed?.status.code).toBe(2);
    expect(failed?.status.message).toContain('the lookup service is down');
    expect(failed?.attributes['error.type']).toBe('execution');
    expect([failed?.attributes['rulvar.verdict'], failed?.attributes['rulvar.layer']]).toEqual(['allow', 'default']);
  });
});

describe('spans without traceContent', () => {
  it('record no input, output, instructions, arguments or results; an error result says only that it was one', async () => {
    const spans = await spansOf(false);
    const content = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];
    for (const span of spans) for (const key of content) expect({ span: span.name, key, has: key in span.attributes }).toEqual({ span: span.name, key, has: false });
    const [failed] = byName(spans, 'execute_tool broken');
    expect([failed?.status.code, failed?.status.message, failed?.attributes['error.type']]).toEqual([2, 'the tool call ended in an error result', 'execution']);
  });
});
