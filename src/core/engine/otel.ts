/**
 * `@rulvar/core/otel`: what helps with the engine's spans (`createEngine({ tracer })` takes the
 * tracer in every runtime, docs/traces.md): the attribute and event names they carry, the
 * structural tracer types, and the ids a run's journal keeps of the span it started under.
 */
import type { JournalStore } from '../journal/store.js';
import { validSpanContext } from './trace-span.js';
import type { TraceSpanContext } from './trace-types.js';

export { GEN_AI_ATTRIBUTES, RULVAR_ATTRIBUTES, RULVAR_EVENTS, MAX_TRACE_CONTENT_CHARS, MAX_TRACE_TEXT_CHARS } from './trace-names.js';
export type { EngineTracer, TraceAttributeValue, TraceContext, TraceSpan, TraceSpanContext, TraceSpanOptions } from './trace-types.js';

/**
 * The ids of the span run `runId` started under, as its run:start entry keeps them (undefined
 * for a run started untraced, or an unknown one): what a span of your own links to, an
 * approval's webhook handler for one, as a resume's run span does.
 */
export async function runSpanContext(journal: JournalStore, runId: string): Promise<TraceSpanContext | undefined> {
  const entries = await journal.load(runId);
  const started = entries.find((entry) => entry?.type === 'run:start');
  return validSpanContext(started?.type === 'run:start' ? started.trace : undefined);
}
