/**
 * One span as the engine holds it: every call into the host's tracer guarded (a tracer that
 * throws loses its spans, never the run), every string scrubbed and bounded before it leaves
 * (the text is passed through every `redact` the engine's adapters declare, as their answers
 * are, then cut), and ended once. Children are parented through a context of our own making:
 * OpenTelemetry keys the parent span under `Symbol.for('OpenTelemetry Context Key SPAN')` in
 * every 1.x version, so no `@opentelemetry/api` is needed to hand a parent to `startSpan`.
 */
import { describeCause, RulvarError } from '../errors.js';
import { GEN_AI_ATTRIBUTES as G, MAX_TRACE_CONTENT_CHARS, MAX_TRACE_TEXT_CHARS } from './trace-names.js';
import type { EngineTracer, TraceAttributeValue, TraceContext, TraceSpan, TraceSpanContext, TraceSpanOptions } from './trace-types.js';

const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
/** What a recorded text becomes when a `redact` throws or answers no string: nothing of it leaves. */
const UNREDACTED = '[not recorded: redaction failed]';
export const SPAN_ERROR = 2;

export type Attributes = Record<string, TraceAttributeValue | undefined>;

/** Scrubs and bounds every string a span gets; shared by all the spans of one engine. */
export type Clean = (text: string, max?: number) => string;

export function cleaner(redacts: readonly ((text: string) => unknown)[]): Clean {
  return (text, max = MAX_TRACE_TEXT_CHARS) => {
    let out = cut(text, max);
    try {
      for (const redact of redacts) {
        const next = redact(out);
        if (typeof next !== 'string') return UNREDACTED;
        out = next;
      }
    } catch {
      return UNREDACTED;
    }
    return cut(out, max);
  };
}

const CUT = '…[cut]';

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Cut already (before the redacts ran): its marker is not cut again.
  if (text.endsWith(CUT) && text.length - CUT.length <= max) return text;
  // Not between the halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}${CUT}`;
}

function guard(work: () => unknown): void {
  try {
    work();
  } catch {
    // The tracer is the host's: whatever it throws stays with it.
  }
}

/** A context holding only `span` as the parent: what `startSpan` reads its parent from. */
class ParentContext implements TraceContext {
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): TraceContext {
    return new ParentContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): TraceContext {
    const next = new Map(this.values);
    next.delete(key);
    return new ParentContext(next);
  }
}

export class TracedSpan {
  private ended = false;

  constructor(
    private readonly span: TraceSpan | undefined,
    readonly clean: Clean,
    private readonly onEnd: (span: TracedSpan) => void,
  ) {}

  /** Starts a span; without a parent, the tracer's active context is its parent. */
  static start(tracer: EngineTracer, name: string, kind: number, attributes: Attributes, clean: Clean, onEnd: (span: TracedSpan) => void, parent?: TracedSpan, links?: { context: TraceSpanContext }[]): TracedSpan {
    let span: TraceSpan | undefined;
    const options: TraceSpanOptions = { kind, attributes: cleanAll(attributes, clean), ...(links === undefined ? {} : { links }) };
    guard(() => {
      const started: unknown = parent?.span === undefined ? tracer.startSpan(clean(name), options) : tracer.startSpan(clean(name), options, new ParentContext(new Map([[SPAN_KEY, parent.span]])));
      if (typeof started === 'object' && started !== null) span = started as TraceSpan;
    });
    return new TracedSpan(span, clean, onEnd);
  }

  /** The span's identity, when the tracer gave a valid one. */
  context(): TraceSpanContext | undefined {
    let context: TraceSpanContext | undefined;
    guard(() => (context = validSpanContext(this.span?.spanContext())));
    return context;
  }

  set(attributes: Attributes): void {
    if (this.ended) return;
    const span = this.span;
    if (span === undefined) return;
    const clean = cleanAll(attributes, this.clean);
    for (const key in clean) {
      const value = clean[key];
      if (value !== undefined) guard(() => span.setAttribute(key, value));
    }
  }

  /** Records an input or output (`traceContent: true` only): JSON text, scrubbed, at most MAX_TRACE_CONTENT_CHARS. */
  content(key: string, value: unknown): void {
    if (this.ended) return;
    let text: string | undefined;
    guard(() => (text = typeof value === 'string' ? value : JSON.stringify(value)));
    if (text === undefined) return;
    const clean = this.clean(text, MAX_TRACE_CONTENT_CHARS);
    guard(() => this.span?.setAttribute(key, clean));
  }

  event(name: string, attributes: Attributes = {}): void {
    if (!this.ended) guard(() => this.span?.addEvent(name, cleanAll(attributes, this.clean)));
  }

  /** Marks the span failed: `error.type` is a RulvarError's code (else the error's name), the status message the scrubbed message. */
  fail(error: unknown, type?: string): void {
    if (this.ended) return;
    let code = type;
    guard(() => (code ??= RulvarError.is(error) ? error.code : error instanceof Error ? error.name : 'Error'));
    this.set({ [G.ERROR_TYPE]: code ?? '_OTHER' });
    const message = this.clean(describeCause(error));
    guard(() => this.span?.setStatus({ code: SPAN_ERROR, message }));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
    guard(() => this.span?.end());
  }
}

/**
 * Every string of `attributes` scrubbed and bounded; undefined members left out. The common
 * case (every value set, every string already clean) hands back `attributes` itself: a span
 * per model turn and per tool call made a copy each, which was most of what tracing cost
 * with a tracer that records nothing.
 */
function cleanAll(attributes: Attributes, clean: Clean): Attributes {
  let out: Attributes | undefined;
  for (const key in attributes) {
    const value = attributes[key];
    const cleaned = value === undefined ? undefined : typeof value === 'string' ? clean(value) : Array.isArray(value) ? cleanList(value, clean) : value;
    if (out === undefined) {
      if (cleaned === value && value !== undefined) continue;
      out = copyBefore(attributes, key);
    }
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return out ?? attributes;
}

/** The members of `attributes` before `stop`, as they are (cleanAll found them clean). */
function copyBefore(attributes: Attributes, stop: string): Attributes {
  const out: Attributes = {};
  for (const key in attributes) {
    if (key === stop) break;
    out[key] = attributes[key];
  }
  return out;
}

/** A list attribute: at most 100 members, its strings cleaned; the list itself when nothing changed. */
function cleanList(list: readonly unknown[], clean: Clean): TraceAttributeValue {
  let changed = list.length > 100;
  const out = list.slice(0, 100).map((v: unknown) => {
    const cleaned = typeof v === 'string' ? clean(v) : v;
    changed ||= cleaned !== v;
    return cleaned;
  });
  return (changed ? out : list) as TraceAttributeValue;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/** `value` as a span context when it is one (ids of the right shape, not all zeros), else undefined. */
export function validSpanContext(value: unknown): TraceSpanContext | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceId, spanId, traceFlags } = value as Partial<TraceSpanContext>;
  if (typeof traceId !== 'string' || !HEX32.test(traceId) || /^0+$/.test(traceId)) return undefined;
  if (typeof spanId !== 'string' || !HEX16.test(spanId) || /^0+$/.test(spanId)) return undefined;
  const flags = Number.isInteger(traceFlags) && (traceFlags as number) >= 0 && (traceFlags as number) <= 255 ? (traceFlags as number) : 0;
  return { traceId, spanId, traceFlags: flags };
}
