/**
 * One streamed attempt of a model turn (model-call.ts calls it in place of `generate` when the
 * adapter can stream): the adapter's deltas checked and bounded (model/assemble.ts), scrubbed
 * with the adapter's own `redact` when it declares one, handed to `emit` as they come, and
 * assembled into the one raw answer that is then checked and journaled as a `generate` answer.
 *
 * A stream that ends without `end`, or breaks after it began, is a cut stream: a retryable
 * failure, so the engine's retry policy applies and nothing is journaled. A failure before
 * the first delta is whatever the adapter said (a 401 stays final, as from `generate`).
 */
import { describeCause } from '../errors.js';
import { DeltaAssembler } from '../model/assemble.js';
import { DeltaScrub, REDACT_HOLD } from '../model/scrub-deltas.js';
import type { ModelAdapter, ModelDelta, ModelRequest } from '../model/types.js';
import { isWindowed } from '../secrets/redactor.js';
import { WINDOW } from '../secrets/scan.js';

export type DeltaSink = (delta: ModelDelta) => void;

export async function streamedAnswer(adapter: ModelAdapter, request: ModelRequest, signal: AbortSignal, emit: DeltaSink | undefined): Promise<unknown> {
  const assembler = new DeltaAssembler();
  const scrub = scrubOf(adapter);
  const iterator = (adapter.stream as NonNullable<ModelAdapter['stream']>).call(adapter, request, signal)[Symbol.asyncIterator]();
  let started = false;
  try {
    while (!assembler.ended) {
      let next: IteratorResult<ModelDelta>;
      try {
        next = await untilAborted(iterator.next(), signal);
      } catch (error) {
        throw started ? cutStream(error) : error;
      }
      if (next.done === true) throw cutStream(new Error('the stream ended before its end delta'));
      started = true;
      const delta = assembler.check(next.value);
      for (const out of scrub === undefined ? [delta] : scrub.pass(delta)) {
        assembler.add(out);
        emit?.(out);
      }
    }
  } finally {
    // Let the adapter release its connection; what its cleanup does or throws is its own.
    try {
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    } catch {
      // A `return` that throws releases nothing more.
    }
  }
  return assembler.response();
}

/** The adapter's `redact` as a stream scrubber; none when it declares none. */
function scrubOf(adapter: ModelAdapter): DeltaScrub | undefined {
  const redact: unknown = adapter.redact;
  if (redact === undefined) return undefined;
  if (typeof redact !== 'function') throw new TypeError('the adapter declares a redact that is not a function');
  return new DeltaScrub((text) => {
    const clean: unknown = redact.call(adapter, text);
    if (typeof clean !== 'string') throw new TypeError('the adapter\'s redact returned something other than a string');
    return clean;
  }, isWindowed(redact) ? WINDOW : REDACT_HOLD);
}

/**
 * A stream that broke midway, retryable unless the adapter said otherwise: its message is
 * kept, the rest of what it threw is not (model.ts keeps only the name, code and message).
 */
function cutStream(cause: unknown): unknown {
  let flagged = false;
  try {
    flagged = typeof cause === 'object' && cause !== null && typeof (cause as { retryable?: unknown }).retryable === 'boolean';
  } catch {
    // A getter that throws flags nothing.
  }
  if (flagged) return cause;
  return Object.assign(new Error(`the stream was cut: ${describeCause(cause)}`), { retryable: true });
}

/** `work`, or the signal's reason as soon as it aborts: an adapter may ignore its signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
