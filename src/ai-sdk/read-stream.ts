/**
 * The parts of a `doStream` result's `stream`, read one at a time, each read raced against
 * the call's signal (a stream that never yields ends at the call's timeout or the run's
 * abort, even when its source ignores both). However the reading ends (the finish, an error,
 * a bound, the engine dropping the iteration), the stream is cancelled, so the provider stops
 * reading the socket.
 */
import type { BoundedCall } from './bounded-call.js';

interface PartReader {
  read(): PromiseLike<{ done?: boolean; value?: unknown }>;
  cancel(reason?: unknown): PromiseLike<void>;
  releaseLock?(): void;
}

export async function* readParts(result: unknown, call: BoundedCall): AsyncGenerator<unknown> {
  const reader = readerOf(result, call);
  try {
    for (;;) {
      const next = await call.invoke(() => reader.read());
      if (typeof next !== 'object' || next === null) throw call.protocol('answered a stream whose read() gave no result object');
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    cancel(reader);
  }
}

function readerOf(result: unknown, call: BoundedCall): PartReader {
  let reader: unknown;
  try {
    const stream = typeof result === 'object' && result !== null ? (result as { stream?: unknown }).stream : undefined;
    const getReader = typeof stream === 'object' && stream !== null ? (stream as { getReader?: unknown }).getReader : undefined;
    if (typeof getReader === 'function') reader = getReader.call(stream);
  } catch {
    reader = undefined;
  }
  const candidate = reader as Partial<PartReader> | undefined;
  if (typeof candidate?.read !== 'function' || typeof candidate.cancel !== 'function') {
    throw call.protocol('answered doStream with no readable stream (a result whose stream is a ReadableStream)');
  }
  return candidate as PartReader;
}

/** Cancelled without waiting: a hostile stream's cancel may never settle, or throw. */
function cancel(reader: PartReader): void {
  try {
    Promise.resolve(reader.cancel()).catch(() => undefined);
  } catch {
    // Nothing more can be done for a stream that refuses to be cancelled.
  }
}
