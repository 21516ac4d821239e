/**
 * Small promise utilities that every bounded wait in this library is built from. Each one
 * cleans up after itself (timers cleared, listeners removed) and marks the promise it gives
 * up on as handled, so a late rejection is never an unhandled one.
 */

/** Waits for `promise` to settle, or `ms`, whichever comes first; never rejects. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.then(noop, noop), gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** `promise`, unless `signal` aborts first: then a rejection with `onAbort()`. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  promise.catch(noop);
  if (signal.aborted) return Promise.reject(onAbort());
  let forward: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    forward = () => reject(onAbort());
    signal.addEventListener('abort', forward, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => {
    if (forward !== undefined) signal.removeEventListener('abort', forward);
  });
}

/**
 * A fresh signal for a call made without one: it never aborts. A tool that attaches listeners
 * attaches them to its own call's signal, which goes away with the call.
 */
export function signalThatNeverAborts(): AbortSignal {
  return new AbortController().signal;
}

function noop(): void {}

/** `promise`, or a rejection with `onExpiry()` after `ms`; the timer never outlives it. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, onExpiry: () => Error): Promise<T> {
  promise.catch(noop);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpiry()), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves after `ms`; rejects with `reason()` as soon as `signal` aborts (at once when it
 * already has). Neither the timer nor the listener outlives the wait.
 */
export function abortableSleep(ms: number, signal: AbortSignal, reason: () => unknown = () => signal.reason): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(reason());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(reason());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
