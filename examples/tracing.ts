/** The engine's OpenTelemetry spans: a run that suspends on an approval, and its resume linked to it (docs/traces.md quotes it). */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createEngine, defineWorkflow, memoryJournal, tool } from '@rulvar/core';
import { GEN_AI_ATTRIBUTES, RULVAR_ATTRIBUTES } from '@rulvar/core/otel';
import { scripted } from '@rulvar/core/testing';

// Any exporter works (OTLP to Jaeger, Honeycomb, Langfuse...); in memory here, to print them.
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
const tracer = trace.getTracer('notes-app');

const lookup = tool({ name: 'lookup', description: 'Finds a note', parameters: { type: 'object' }, execute: () => 'call Ann' });
const send = tool({ name: 'send', description: 'Sends a message', parameters: { type: 'object' }, needsApproval: true, execute: () => 'sent' });
const model = scripted([{ toolCalls: [{ name: 'lookup', input: {} }], usage: { inputTokens: 40, outputTokens: 8 } }, { toolCalls: [{ name: 'send', input: { to: 'Ann' } }] }, 'Done.']);
const options = { adapters: [model], journal: memoryJournal(), tracer, defaults: { model: 'scripted:any' } };

const remind = defineWorkflow({ name: 'remind' }, async (ctx) => (await ctx.agent('Remind me of my note', { tools: [lookup, send] })).text);

/** One line per span, children indented under their parent, in the order they started. */
function print(spans: readonly ReadableSpan[], parent?: string, depth = 0): void {
  const children = spans.filter((s) => s.parentSpanContext?.spanId === parent);
  children.sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  for (const span of children) {
    const a = span.attributes;
    const tokens = a[GEN_AI_ATTRIBUTES.USAGE_INPUT_TOKENS] === undefined ? '' : `tokens ${String(a[GEN_AI_ATTRIBUTES.USAGE_INPUT_TOKENS])}+${String(a[GEN_AI_ATTRIBUTES.USAGE_OUTPUT_TOKENS])}`;
    const verdict = a[RULVAR_ATTRIBUTES.VERDICT] === undefined ? '' : `verdict ${String(a[RULVAR_ATTRIBUTES.VERDICT])}`;
    const facts = [tokens, verdict, ...span.events.map((e) => `event ${e.name}`), span.links.length > 0 ? 'linked to the first run span' : ''];
    console.log(`${'  '.repeat(depth)}${span.name}  ${facts.filter(Boolean).join(', ')}`.trimEnd());
    print(spans, span.spanContext().spanId, depth + 1);
  }
}

const first = await createEngine(options).run(remind, null).result;
print(exporter.getFinishedSpans());
exporter.reset();
if (first.status === 'suspended') {
  const [ask] = first.approvals;
  const engine = createEngine(options);
  await engine.resolveExternal(ask!.runId, ask!.key, 'allow');
  const done = await engine.resume(ask!.runId, remind).result;
  print(exporter.getFinishedSpans());
  console.log(done.status);
}
