/**
 * The few members of an OpenTelemetry `Tracer` and `Span` the engine uses, as structural
 * types: `@opentelemetry/api` is an optional peer, so nothing in the core imports it, and a
 * `Tracer` from any 1.x version of it is one of these. Types only.
 */

/** What a span attribute may hold: OpenTelemetry's `AttributeValue` (the engine sets strings, numbers, booleans and lists of strings). */
export type TraceAttributeValue = string | number | boolean | (string | null | undefined)[] | (number | null | undefined)[] | (boolean | null | undefined)[];

/** A span's identity, as OpenTelemetry's `SpanContext` carries it: 32 and 16 lowercase hex digits, and the trace flags. */
export interface TraceSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** OpenTelemetry's `Context`: an immutable map the tracer reads a parent span from. */
export interface TraceContext {
  /** The value under `key`. */
  getValue(key: symbol): unknown;
  /** A context like this one with `value` under `key`. */
  setValue(key: symbol, value: unknown): TraceContext;
  /** A context like this one without `key`. */
  deleteValue(key: symbol): TraceContext;
}

/** The options of `startSpan` the engine passes: a kind (0 internal, 2 client), attributes, links. */
export interface TraceSpanOptions {
  kind?: number;
  attributes?: Record<string, TraceAttributeValue | undefined>;
  links?: { context: TraceSpanContext }[];
}

/** The members of an OpenTelemetry `Span` the engine calls; every call is guarded. */
export interface TraceSpan {
  /** The span's ids: what a link to it (a resume's) and the run:start entry keep. */
  spanContext(): TraceSpanContext;
  /** Sets one attribute. */
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  /** Adds an event (a suspension, an approval asked or resolved). */
  addEvent(name: string, attributes?: Record<string, TraceAttributeValue | undefined>): unknown;
  /** Sets the status: code 2 (error) with the error's message, for a failure. */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): void;
}

/**
 * An OpenTelemetry `Tracer` (`trace.getTracer('my-app')`), as `createEngine({ tracer })`
 * takes it. A tracer that throws, or returns something that is no span, costs the run nothing
 * but those spans.
 */
export interface EngineTracer {
  /** Starts a span; the engine passes `context` to parent it under another of its spans. */
  startSpan(name: string, options?: TraceSpanOptions, context?: TraceContext): TraceSpan;
}
