/**
 * Unit tests of streamedAnswer (src/core/engine/model-stream.ts): a stream that ends without
 * `end`, or breaks after it began, is a cut stream (retryable, its cause's message kept, unless
 * the adapter flagged the failure itself); a failure before the first delta is the adapter's
 * own; a redact that is not a function, or returns no string, is refused; the adapter's
 * iterator is returned whatever happened; an abort ends a stream that ignores its signal.
 */
import { describe, expect, it } from 'vitest';
import { streamedAnswer } from '../../src/core/engine/model-stream.js';
import type { ModelAdapter, ModelDelta, ModelRequest } from '../../src/core/model/types.js';
import { caught } from '../core/helpers.js';

const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const TEXT: ModelDelta = { type: 'text', text: 'hello' };
const END: ModelDelta = { type: 'end', stopReason: 'end' };
const live = () => new AbortController().signal;

/** An adapter streaming `steps` (a delta, or an error to throw there, or 'hang'); counts its iterator's return. */
function streaming(steps: (ModelDelta | Error | 'hang')[], extra: Partial<ModelAdapter> = {}) {
  const seen = { returned: 0 };
  const adapter = {
    id: 's',
    generate: () => Promise.reject(new Error('not used')),
    stream: () => ({
      [Symbol.asyncIterator]: () => {
        let at = 0;
        return {
          next: (): Promise<IteratorResult<ModelDelta>> => {
            const step = steps[at];
            at += 1;
            if (step === undefined) return Promise.resolve({ done: true, value: undefined });
            if (step === 'hang') return new Promise(() => undefined);
            return step instanceof Error ? Promise.reject(step) : Promise.resolve({ done: false, value: step });
          },
          return: () => ((seen.returned += 1), Promise.resolve({ done: true as const, value: undefined })),
        };
      },
    }),
    ...extra,
  } as unknown as ModelAdapter;
  return { adapter, seen };
}

describe('streamedAnswer', () => {
  it('assembles the deltas, hands each to emit, and returns the iterator', async () => {
    const { adapter, seen } = streaming([TEXT, END]);
    const emitted: ModelDelta[] = [];
    expect(await streamedAnswer(adapter, REQUEST, live(), (d) => emitted.push(d))).toMatchObject({ text: 'hello', stopReason: 'end' });
    expect(emitted).toEqual([TEXT, END]);
    expect(seen.returned).toBe(1);
  });

  it('a stream that ends without end, or breaks after it began, is cut and retryable, its cause named', async () => {
    const ended = streaming([TEXT]);
    expect(await caught(() => streamedAnswer(ended.adapter, REQUEST, live(), undefined))).toMatchObject({ message: 'the stream was cut: the stream ended before its end delta', retryable: true });
    expect(ended.seen.returned).toBe(1);
    const broke = streaming([TEXT, new Error('socket hang up')]);
    expect(await caught(() => streamedAnswer(broke.adapter, REQUEST, live(), undefined))).toMatchObject({ message: 'the stream was cut: socket hang up', retryable: true });
    expect(broke.seen.returned).toBe(1);
  });

  it('a failure the adapter flagged itself stays as it is, after the first delta or before it; an unflagged one before it is not cut', async () => {
    const flagged = Object.assign(new Error('401'), { retryable: false });
    expect(await caught(() => streamedAnswer(streaming([TEXT, flagged]).adapter, REQUEST, live(), undefined))).toBe(flagged);
    const early = new Error('refused at once');
    const failed = await caught(() => streamedAnswer(streaming([early]).adapter, REQUEST, live(), undefined));
    expect(failed).toBe(early);
    expect(Object.hasOwn(early, 'retryable')).toBe(false);
    const trap = Object.defineProperty(new Error('trap'), 'retryable', {
      get() {
        throw new Error('getter');
      },
    });
    expect(await caught(() => streamedAnswer(streaming([TEXT, trap]).adapter, REQUEST, live(), undefined))).toMatchObject({ message: 'the stream was cut: trap', retryable: true });
  });

  it('a redact that is not a function, or that returns no string, is refused; one that does scrubs what emit sees', async () => {
    expect(((await caught(() => streamedAnswer(streaming([TEXT, END], { redact: 'x' as never }).adapter, REQUEST, live(), undefined))) as Error).message).toBe('the adapter declares a redact that is not a function');
    const numeric = streaming([TEXT, END], { redact: (() => 5) as never });
    expect(((await caught(() => streamedAnswer(numeric.adapter, REQUEST, live(), undefined))) as Error).message).toBe("the adapter's redact returned something other than a string");
    const emitted: string[] = [];
    const scrubbed = streaming([TEXT, END], { redact: (text: string) => text.replace('hello', 'HELLO') });
    expect(await streamedAnswer(scrubbed.adapter, REQUEST, live(), (d) => d.type === 'text' && emitted.push(d.text))).toMatchObject({ text: 'HELLO' });
    expect(emitted.join('')).toBe('HELLO');
  });

  it('an abort ends a stream that ignores its signal, before it began or in the middle', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('already'));
    expect(((await caught(() => streamedAnswer(streaming([TEXT, END]).adapter, REQUEST, aborted.signal, undefined))) as Error).message).toBe('already');
    const later = new AbortController();
    const { adapter, seen } = streaming([TEXT, 'hang']);
    const answer = streamedAnswer(adapter, REQUEST, later.signal, undefined);
    setTimeout(() => later.abort(new Error('stop')), 10);
    expect(await caught(() => answer)).toMatchObject({ message: 'the stream was cut: stop', retryable: true });
    expect(seen.returned).toBe(1);
  });
});
