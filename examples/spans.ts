/** A run's OpenTelemetry spans, each under its parent (the README quotes it; tracing.ts adds a suspension and a resume). */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createEngine, defineWorkflow, tool } from '@rulvar/core';
import { scripted } from '@rulvar/core/testing';

// Any exporter works (OTLP to Jaeger, Honeycomb, Langfuse...); this one keeps the spans in memory.
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

const lookup = tool({ name: 'lookup', description: 'Finds a note', parameters: { type: 'object' }, execute: () => 'call Ann' });
const model = scripted([{ toolCalls: [{ name: 'lookup', input: {} }] }, 'Call Ann.']);
const engine = createEngine({ adapters: [model], defaults: { model: 'scripted:any' }, tracer: trace.getTracer('notes-app') });
const remind = defineWorkflow({ name: 'remind' }, async (ctx) => (await ctx.agent('Remind me', { tools: [lookup] })).text);
await engine.run(remind, null).result;

const spans = exporter.getFinishedSpans();
const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
const depth = (span: ReadableSpan): number => {
  const parent = byId.get(span.parentSpanContext?.spanId ?? '');
  return parent === undefined ? 0 : 1 + depth(parent);
};
const inStartOrder = [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
for (const span of inStartOrder) console.log(`${'  '.repeat(depth(span))}${span.name}`);
