/**
 * Unit tests of one engine span (src/core/engine/trace-span.ts) against a tracer of the test's
 * own: every string cut at its bound (never between the halves of a surrogate pair) and passed
 * through each redact in turn, nothing of it recorded when a redact throws or answers no
 * string; a tracer that throws or hands back no span costs the run nothing; attributes left as
 * they are when clean (no copy), copied in order without undefined members otherwise, lists
 * at most 100 long; content, events and failures recorded only until the span ends, which
 * happens once; and span contexts taken only when their ids have the right shape.
 */
import { describe, expect, it } from 'vitest';
import { RulvarError } from '../../src/core/errors.js';
import { cleaner, SPAN_ERROR, TracedSpan, validSpanContext, type Attributes } from '../../src/core/engine/trace-span.js';
import { MAX_TRACE_CONTENT_CHARS, MAX_TRACE_TEXT_CHARS } from '../../src/core/engine/trace-names.js';
import type { EngineTracer, TraceSpan, TraceSpanOptions } from '../../src/core/engine/trace-types.js';

const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
const UNREDACTED = '[not recorded: redaction failed]';
const TRACE = 'ab'.repeat(16);
const SPAN = 'cd'.repeat(8);

interface Recorded {
  readonly calls: string[];
  readonly started: { name: string; options: TraceSpanOptions; parent: unknown }[];
  readonly attributes: Record<string, unknown>;
}

/** A tracer recording what it is given; `make`, when given, decides what startSpan answers. */
function recordingTracer(make?: () => unknown): { tracer: EngineTracer; rec: Recorded } {
  const rec: Recorded = { calls: [], started: [], attributes: {} };
  const span: TraceSpan = {
    spanContext: () => ({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }),
    setAttribute: (key, value) => {
      rec.calls.push(`set ${key}`);
      rec.attributes[key] = value;
      return span;
    },
    addEvent: (name, attributes) => (rec.calls.push(`event ${name} ${JSON.stringify(attributes)}`), span),
    setStatus: (status) => (rec.calls.push(`status ${JSON.stringify(status)}`), span),
    end: () => void rec.calls.push('end'),
  } as TraceSpan;
  const tracer = {
    startSpan: (name: string, options: TraceSpanOptions, context?: { getValue(key: symbol): unknown }) => {
      rec.started.push({ name, options, parent: context?.getValue(SPAN_KEY) });
      return make === undefined ? span : make();
    },
  } as unknown as EngineTracer;
  return { tracer, rec };
}

const plain = cleaner([]);
const start = (tracer: EngineTracer, attributes: Attributes = {}, clean = plain, onEnd: (s: TracedSpan) => void = () => undefined) => TracedSpan.start(tracer, 'span name', 1, attributes, clean, onEnd);

describe('cleaner', () => {
  it('cuts past its bound, keeping a text of exactly the bound whole; never between the halves of a pair', () => {
    expect(plain('x'.repeat(MAX_TRACE_TEXT_CHARS))).toBe('x'.repeat(MAX_TRACE_TEXT_CHARS));
    expect(plain('x'.repeat(MAX_TRACE_TEXT_CHARS + 1))).toBe(`${'x'.repeat(MAX_TRACE_TEXT_CHARS)}…[cut]`);
    expect(plain('abcdef', 4)).toBe('abcd…[cut]');
    // '😀' is two code units: a cut whose last unit is a pair's first half stops before it.
    expect(plain('abc😀', 4)).toBe('abc…[cut]');
    expect(plain('a😀😀', 2)).toBe('a…[cut]');
    expect(plain('ab😀😀', 4)).toBe('ab😀…[cut]');
  });

  it('passes the text through each redact in turn, then cuts what they made', () => {
    const clean = cleaner([(t) => t.replaceAll('key-A', '[a]'), (t) => t.replaceAll('[a] and key-B', '[both]')]);
    expect(clean('key-A and key-B')).toBe('[both]');
    const growing = cleaner([(t) => t.repeat(3)]);
    expect(growing('abc', 5)).toBe('abcab…[cut]');
  });

  it('a redact that throws or answers anything but a string: nothing of the text is recorded', () => {
    expect(cleaner([() => { throw new Error('broken'); }])('secret')).toBe(UNREDACTED); // prettier-ignore
    for (const answer of [undefined, null, 7, { text: 'x' }]) expect(cleaner([() => answer])('secret')).toBe(UNREDACTED);
    // The first redact is fine, the second is not: still nothing.
    expect(cleaner([(t) => t, () => 1])('secret')).toBe(UNREDACTED);
  });
});

describe('TracedSpan', () => {
  it('starts with its name and attributes cleaned, the parent in the context, links only when given', () => {
    const { tracer, rec } = recordingTracer();
    const clean = cleaner([(t) => t.replaceAll('secret', '[redacted]')]);
    const parent = TracedSpan.start(tracer, 'parent secret', 1, {}, clean, () => undefined);
    const links = [{ context: { traceId: TRACE, spanId: SPAN, traceFlags: 1 } }];
    TracedSpan.start(tracer, 'child', 3, { a: 'a secret', n: 2 }, clean, () => undefined, parent, links);
    expect(rec.started.map((s) => [s.name, s.options.kind, s.parent === undefined])).toEqual([['parent [redacted]', 1, true], ['child', 3, false]]);
    expect(rec.started[1]?.options).toEqual({ kind: 3, attributes: { a: 'a [redacted]', n: 2 }, links });
    expect('links' in (rec.started[0]?.options ?? {})).toBe(false);
  });

  it('clean attributes are handed over as they are; changed ones are a copy in order, without undefined members', () => {
    const { tracer, rec } = recordingTracer();
    const clean = cleaner([(t) => t.replaceAll('secret', '*')]);
    const same: Attributes = { a: 'fine', b: 1, c: ['x', 'y'], d: true };
    start(tracer, same, clean);
    expect(rec.started[0]?.options.attributes).toBe(same);
    start(tracer, { a: 'fine', b: undefined, c: 'a secret', d: 4, e: undefined }, clean);
    const copied = rec.started[1]?.options.attributes;
    expect(copied).toEqual({ a: 'fine', c: 'a *', d: 4 });
    expect(Object.keys(copied ?? {})).toEqual(['a', 'c', 'd']);
    // An undefined first member alone is reason to copy: it must not be handed on.
    start(tracer, { gone: undefined, kept: 'x' }, clean);
    expect(rec.started[2]?.options.attributes).toEqual({ kept: 'x' });
  });

  it('lists: their strings cleaned, at most 100 members; a list that needs nothing is kept as it is', () => {
    const { tracer, rec } = recordingTracer();
    const clean = cleaner([(t) => t.replaceAll('secret', '*')]);
    const tidy = ['a', 'b'];
    start(tracer, { tidy, dirty: ['a secret', 'b'], long: Array.from({ length: 150 }, (_, i) => String(i)), full: Array.from({ length: 100 }, (_, i) => String(i)) }, clean);
    const attributes = rec.started[0]?.options.attributes ?? {};
    expect(attributes['tidy']).toBe(tidy);
    expect(attributes['dirty']).toEqual(['a *', 'b']);
    expect((attributes['long'] as string[]).length).toBe(100);
    expect((attributes['full'] as string[]).length).toBe(100);
  });

  it('a tracer that throws, or answers no span: every call afterwards is a no-op that throws nothing', () => {
    for (const make of [() => { throw new Error('tracer down'); }, () => 7, () => null]) { // prettier-ignore
      const { tracer } = recordingTracer(make);
      const span = start(tracer);
      expect(() => {
        span.set({ a: 1 });
        span.content('k', { v: 1 });
        span.event('e');
        span.fail(new Error('x'));
        span.end();
      }).not.toThrow();
      expect(span.context()).toBeUndefined();
    }
  });

  it('set: undefined members skipped, each attribute guarded on its own, nothing after the end', () => {
    const { tracer, rec } = recordingTracer();
    const span = start(tracer);
    const original = (rec as unknown as { calls: string[] }).calls;
    span.set({ a: 1, skip: undefined, b: 'two' });
    expect(original).toEqual(['set a', 'set b']);
    span.end();
    span.set({ c: 3 });
    expect(original).toEqual(['set a', 'set b', 'end']);
  });

  it('content: a string as it is, anything else as JSON, cut at the content bound; what cannot be JSON is not recorded', () => {
    const { tracer, rec } = recordingTracer();
    const span = start(tracer);
    span.content('text', 'as is');
    span.content('json', { a: [1, 'b'] });
    span.content('big', 'y'.repeat(MAX_TRACE_CONTENT_CHARS + 5));
    span.content('bigint', 1n);
    span.content('nothing', undefined);
    expect(rec.attributes).toEqual({ text: 'as is', json: '{"a":[1,"b"]}', big: `${'y'.repeat(MAX_TRACE_CONTENT_CHARS)}…[cut]` });
    span.end();
    span.content('late', 'x');
    expect('late' in rec.attributes).toBe(false);
  });

  it('event: its attributes cleaned; nothing after the end', () => {
    const { tracer, rec } = recordingTracer();
    const span = start(tracer, {}, cleaner([(t) => t.replaceAll('secret', '*')]));
    span.event('rulvar.suspended', { why: 'a secret' });
    span.end();
    span.event('late');
    expect(rec.calls).toEqual(['event rulvar.suspended {"why":"a *"}', 'end']);
  });

  it('fail: error.type from the code, the name, or Error, unless given; the status message scrubbed; nothing after the end', () => {
    const { tracer, rec } = recordingTracer();
    const clean = cleaner([(t) => t.replaceAll('secret', '*')]);
    const failures: [unknown, string | undefined, string][] = [
      [new RulvarError('model.failed', 'a secret leaked'), undefined, 'model.failed'],
      [new TypeError('bad secret'), undefined, 'TypeError'],
      ['a string', undefined, 'Error'],
      [new RulvarError('model.failed', 'x'), 'given.type', 'given.type'],
    ];
    for (const [error, type, expected] of failures) {
      rec.calls.length = 0;
      const span = start(tracer, {}, clean);
      span.fail(error, type);
      expect(rec.attributes['error.type']).toBe(expected);
      expect(rec.calls.at(-1)).toMatch(new RegExp(`^status \\{"code":${SPAN_ERROR},"message":`));
      expect(rec.calls.at(-1)).not.toContain('secret');
    }
    const ended = start(tracer, {}, clean);
    ended.end();
    rec.calls.length = 0;
    ended.fail(new Error('late'));
    expect(rec.calls).toEqual([]);
  });

  it('ends once: onEnd and the tracer\'s end are called one time however often end() is', () => {
    const { tracer, rec } = recordingTracer();
    const ends: TracedSpan[] = [];
    const span = start(tracer, {}, plain, (s) => ends.push(s));
    span.end();
    span.end();
    expect(ends).toEqual([span]);
    expect(rec.calls.filter((c) => c === 'end')).toHaveLength(1);
  });

  it('context(): the span\'s own, when valid', () => {
    const { tracer } = recordingTracer();
    expect(start(tracer).context()).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
  });
});

describe('validSpanContext', () => {
  it('takes ids of the right shape only, never all zeros; flags outside 0-255 or not integers are 0', () => {
    expect(validSpanContext({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    for (const [traceFlags, kept] of [[0, 0], [255, 255], [256, 0], [-1, 0], [1.5, 0], ['1', 0], [undefined, 0]] as const) {
      expect({ traceFlags, got: validSpanContext({ traceId: TRACE, spanId: SPAN, traceFlags })?.traceFlags }).toEqual({ traceFlags, got: kept });
    }
    const refused: unknown[] = [
      undefined,
      null,
      'ids',
      { traceId: TRACE.toUpperCase(), spanId: SPAN },
      { traceId: TRACE.slice(1), spanId: SPAN },
      { traceId: `${TRACE}0`, spanId: SPAN },
      { traceId: '0'.repeat(32), spanId: SPAN },
      { traceId: 7, spanId: SPAN },
      { traceId: TRACE, spanId: SPAN.slice(1) },
      { traceId: TRACE, spanId: `${SPAN}a` },
      { traceId: TRACE, spanId: '0'.repeat(16) },
      { traceId: TRACE, spanId: null },
    ];
    for (const value of refused) expect({ value, got: validSpanContext(value) }).toEqual({ value, got: undefined });
    // Zeros among other digits are fine.
    expect(validSpanContext({ traceId: `${'0'.repeat(31)}1`, spanId: `1${'0'.repeat(15)}`, traceFlags: 0 })).toBeDefined();
  });
});
