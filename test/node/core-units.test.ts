/**
 * Unit tests for the small runtime-neutral helpers every other module leans on:
 * src/core/errors.ts (typed errors, their cross-bundle guards, cause descriptions),
 * src/core/async.ts (bounded waits that clean up after themselves), src/core/timers.ts (timers
 * that keep no process alive, whatever the runtime's timers are) and the digest memo of
 * src/core/bus/toolset-hash.ts. The suites elsewhere
 * reach these only through whole sources, which left the edge cases unpinned.
 */
import { createHash } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { raceSignal, settledWithin, withDeadline } from '../../src/core/async.js';
import { sha256Hex } from '../../src/core/bus/toolset-hash.js';
import { refTimer, unrefTimer } from '../../src/core/timers.js';
import {
  ConfigError,
  cutText,
  describeCause,
  MAX_CAUSE_CHARS,
  RulvarError,
  SourceError,
  withSafeCause,
} from '../../src/core/errors.js';

/** An error as another copy of the package (or a Worker) would hand it over: no shared class. */
const lookAlike = (name: string, code: unknown = 'source.unavailable'): Error =>
  Object.assign(new Error('from elsewhere'), { name, code });

describe('error guards', () => {
  const guards = [
    ['RulvarError', RulvarError.is],
    ['ConfigError', ConfigError.is],
    ['SourceError', SourceError.is],
  ] as const;

  it('instances carry their own name and code', () => {
    // `name` is what a foreign bundle's guard looks at, so it must be the class's own.
    expect(new RulvarError('run.aborted', 'm').name).toBe('RulvarError');
    expect(new ConfigError('config.invalid_value', 'm').name).toBe('ConfigError');
    expect(new SourceError('source.closed', 'm').name).toBe('SourceError');
    expect(new SourceError('source.closed', 'm').code).toBe('source.closed');
  });

  it('instances pass their own guard and their parent, not their sibling', () => {
    const config = new ConfigError('config.invalid_value', 'm');
    const source = new SourceError('source.closed', 'm');
    expect([RulvarError.is(config), ConfigError.is(config), SourceError.is(config)]).toEqual([true, true, false]);
    expect([RulvarError.is(source), ConfigError.is(source), SourceError.is(source)]).toEqual([true, false, true]);
    const plain = new RulvarError('run.aborted', 'm');
    expect([RulvarError.is(plain), ConfigError.is(plain), SourceError.is(plain)]).toEqual([true, false, false]);
  });

  it.each(guards)('%s.is accepts a foreign-bundle look-alike by name and string code', (name, is) => {
    expect(is(lookAlike(name))).toBe(true);
  });

  it('RulvarError.is accepts a look-alike of any of the three names', () => {
    for (const name of ['RulvarError', 'ConfigError', 'SourceError']) expect(RulvarError.is(lookAlike(name))).toBe(true);
  });

  it('a SourceError look-alike is not a ConfigError, nor the reverse', () => {
    expect(ConfigError.is(lookAlike('SourceError'))).toBe(false);
    expect(SourceError.is(lookAlike('ConfigError'))).toBe(false);
    // A bare RulvarError look-alike is neither subclass.
    expect(ConfigError.is(lookAlike('RulvarError'))).toBe(false);
    expect(SourceError.is(lookAlike('RulvarError'))).toBe(false);
  });

  describe.each(guards)('%s.is rejects near misses', (name, is) => {
    it('an error with the name but no code', () => {
      expect(is(Object.assign(new Error('x'), { name }))).toBe(false);
    });
    it('an error with the name but a numeric code (codes are dotted strings)', () => {
      expect(is(lookAlike(name, 503))).toBe(false);
    });
    it('an error with a string code but another name', () => {
      expect(is(lookAlike('TypeError'))).toBe(false);
    });
    it('an object with a code but no name', () => {
      expect(is({ code: 'source.closed' })).toBe(false);
    });
    it('null and undefined, without throwing', () => {
      // typeof null is 'object': the null check is what keeps `.name` from throwing here.
      expect(is(null)).toBe(false);
      expect(is(undefined)).toBe(false);
    });
    it('a string that merely spells the name', () => {
      expect(is(name)).toBe(false);
    });
    it('a function, which has a string name and can be given a code', () => {
      // Not an object, so not an error, even though `.name` and `.code` both read as strings.
      const fn = Object.defineProperty(Object.assign(() => undefined, { code: 'source.closed' }), 'name', { value: name });
      expect(is(fn)).toBe(false);
    });
  });
});

describe('describeCause', () => {
  it('uses an Error’s message, not its String() form', () => {
    expect(describeCause(new TypeError('boom'))).toBe('boom');
  });

  it('keeps a string as is and prints a number', () => {
    expect(describeCause('plain text')).toBe('plain text');
    expect(describeCause(42)).toBe('42');
  });

  it('names a value String() cannot print', () => {
    expect(describeCause(Object.create(null))).toBe('an unprintable value');
  });

  it(`cuts a long message to MAX_CAUSE_CHARS (${MAX_CAUSE_CHARS}) and says how long it was`, () => {
    expect(describeCause(new Error('e'.repeat(600)))).toBe(`${'e'.repeat(MAX_CAUSE_CHARS)}… (cut: 600 characters in all)`);
    expect(describeCause('e'.repeat(MAX_CAUSE_CHARS))).toBe('e'.repeat(MAX_CAUSE_CHARS));
  });
});

describe('cutText', () => {
  const max = 10;
  const cut = (kept: string, total: number) => `${kept}… (cut: ${total} characters in all)`;

  it('leaves text of exactly max characters alone', () => {
    expect(cutText('a'.repeat(max), max)).toBe('a'.repeat(max));
  });

  it('cuts text of max + 1 characters to max and gives the full length', () => {
    expect(cutText('a'.repeat(max + 1), max)).toBe(cut('a'.repeat(max), max + 1));
  });

  it.each([
    ['0xD800 (lowest high surrogate)', '\uD800\uDC00'],
    ['0xDBFF (highest high surrogate)', '\uDBFF\uDFFF'],
  ])('does not leave a lone high surrogate when a pair straddles the cut: %s', (_, pair) => {
    // The pair's first half sits at max - 1, its second half at max: both must go.
    const text = `${'a'.repeat(max - 1)}${pair}bb`;
    const result = cutText(text, max);
    expect(result).toBe(cut('a'.repeat(max - 1), text.length));
    // With the u flag a surrogate half matches \p{Cs} only when it is alone.
    expect(result).not.toMatch(/\p{Cs}/u);
  });

  it('keeps max characters when the unit at max - 1 is just below the surrogates (0xD7FF)', () => {
    const text = `${'a'.repeat(max - 1)}\uD7FFbb`;
    expect(cutText(text, max)).toBe(cut(`${'a'.repeat(max - 1)}\uD7FF`, text.length));
  });

  it('keeps a whole pair that ends at max - 1 (its low half, 0xDC00, is just above 0xDBFF)', () => {
    const text = `${'a'.repeat(max - 2)}\uD800\uDC00bb`;
    expect(cutText(text, max)).toBe(cut(`${'a'.repeat(max - 2)}\uD800\uDC00`, text.length));
  });
});

describe('withSafeCause', () => {
  const clean = (text: string) => text.replaceAll('hunter2', '[redacted]');

  it('cleans the message and returns the same error', () => {
    const error = new SourceError('source.protocol', 'token hunter2 refused');
    expect(withSafeCause(error, clean)).toBe(error);
    expect(error.message).toBe('token [redacted] refused');
  });

  it('replaces an Error cause by a new Error with its name, code and cleaned message only', () => {
    const original = Object.assign(new TypeError('server said hunter2'), { code: 'ECONNRESET', body: 'hunter2' });
    const error = withSafeCause(new SourceError('source.unavailable', 'down', { cause: original }), clean);
    const copy = error.cause;
    expect(copy).toBeInstanceOf(Error);
    expect(copy).not.toBe(original);
    expect(copy).toMatchObject({ name: 'TypeError', message: 'server said [redacted]', code: 'ECONNRESET' });
    // Nothing of the original beyond those three: not its extra fields, not the object itself.
    expect(copy).not.toHaveProperty('body');
    expect(Object.values(copy as object)).not.toContain(original);
    expect((copy as Error).cause).toBeUndefined();
  });

  it('keeps a numeric code', () => {
    const original = Object.assign(new Error('busy'), { code: 503 });
    const copy = withSafeCause(new RulvarError('model.failed', 'm', { cause: original }), clean).cause;
    expect(copy).toHaveProperty('code', 503);
  });

  it('drops a code that is an object, and adds none when there was none', () => {
    const withObject = Object.assign(new Error('odd'), { code: { secret: 'hunter2' } });
    const a = withSafeCause(new RulvarError('model.failed', 'm', { cause: withObject }), clean).cause;
    expect(a).not.toHaveProperty('code');
    const b = withSafeCause(new RulvarError('model.failed', 'm', { cause: new Error('plain') }), clean).cause;
    expect(Object.hasOwn(b as object, 'code')).toBe(false);
  });

  it('does not copy a name from a cause that is not an Error', () => {
    const fromString = withSafeCause(new RulvarError('model.failed', 'm', { cause: 'text hunter2' }), clean).cause;
    expect(fromString).toMatchObject({ name: 'Error', message: 'text [redacted]' });
    // A plain object can claim any name; only real Errors get theirs carried over. Its code
    // is still carried: codes are kept from whatever the cause is.
    const fromObject = withSafeCause(new RulvarError('model.failed', 'm', { cause: { name: 'Fake', code: 7 } }), clean).cause;
    expect(fromObject).toMatchObject({ name: 'Error', message: '[object Object]', code: 7 });
  });

  it('copes with a null cause', () => {
    const error = new RulvarError('model.failed', 'm');
    error.cause = null;
    const copy = withSafeCause(error, clean).cause;
    expect(copy).toBeInstanceOf(Error);
    expect((copy as Error).message).toBe('null');
    expect(Object.hasOwn(copy as object, 'code')).toBe(false);
  });

  it('adds no cause to an error that had none', () => {
    const error = withSafeCause(new RulvarError('model.failed', 'm'), clean);
    expect('cause' in error).toBe(false);
  });

  it('cuts a long cause message to MAX_CAUSE_CHARS', () => {
    const error = withSafeCause(new RulvarError('model.failed', 'm', { cause: new Error('x'.repeat(700)) }), clean);
    expect((error.cause as Error).message).toBe(`${'x'.repeat(MAX_CAUSE_CHARS)}… (cut: 700 characters in all)`);
  });
});

/** A promise's state, readable synchronously, so a test never awaits one that may hang. */
function track<T>(promise: Promise<T>) {
  const state: { status: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown } = { status: 'pending' };
  promise.then(
    (value) => Object.assign(state, { status: 'fulfilled', value }),
    (reason: unknown) => Object.assign(state, { status: 'rejected', reason }),
  );
  return state;
}

const never = () => new Promise<never>(() => undefined);
const flush = () => vi.advanceTimersByTimeAsync(0);

describe('async helpers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('settledWithin', () => {
    it('resolves as soon as the promise fulfils or rejects, and clears its timer', async () => {
      await expect(settledWithin(Promise.resolve('v'), 60_000)).resolves.toBeUndefined();
      await expect(settledWithin(Promise.reject(new Error('no')), 60_000)).resolves.toBeUndefined();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('waits for a promise that settles later, not less', async () => {
      let resolve!: () => void;
      const state = track(settledWithin(new Promise<void>((r) => (resolve = r)), 1_000));
      await vi.advanceTimersByTimeAsync(500);
      expect(state.status).toBe('pending');
      resolve();
      await flush();
      expect(state.status).toBe('fulfilled');
      expect(vi.getTimerCount()).toBe(0);
    });

    it('gives up after ms on a promise that never settles', async () => {
      const state = track(settledWithin(never(), 1_000));
      await vi.advanceTimersByTimeAsync(999);
      expect(state.status).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      expect(state.status).toBe('fulfilled');
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe('raceSignal', () => {
    it('rejects at once with onAbort() when the signal is already aborted', async () => {
      const reason = new Error('aborted');
      const onAbort = vi.fn(() => reason);
      const state = track(raceSignal(never(), AbortSignal.abort(), onAbort));
      await flush();
      expect(state).toEqual({ status: 'rejected', reason });
      expect(onAbort).toHaveBeenCalledTimes(1);
    });

    it('rejects with onAbort() when the signal aborts later, and its listener goes with the abort', async () => {
      const controller = new AbortController();
      const reason = new Error('aborted');
      const onAbort = vi.fn(() => reason);
      const state = track(raceSignal(never(), controller.signal, onAbort));
      await flush();
      expect(state.status).toBe('pending');
      expect(onAbort).not.toHaveBeenCalled();
      controller.abort();
      // Gone the moment the event fires, not some microtasks later.
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await flush();
      expect(state).toEqual({ status: 'rejected', reason });
    });

    it('settles as the promise does and then removes its abort listener', async () => {
      const controller = new AbortController();
      const onAbort = () => new Error('aborted');
      await expect(raceSignal(Promise.resolve('value'), controller.signal, onAbort)).resolves.toBe('value');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      const failure = new Error('failed');
      await expect(raceSignal(Promise.reject(failure), controller.signal, onAbort)).rejects.toBe(failure);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('marks the promise it gave up on as handled', async () => {
      // Real timers here: the wait below is one turn of the event loop, which fake timers stop.
      vi.useRealTimers();
      const unhandled = vi.fn();
      process.on('unhandledRejection', unhandled);
      try {
        let reject!: (reason: Error) => void;
        const late = new Promise<never>((_, r) => (reject = r));
        await expect(raceSignal(late, AbortSignal.abort(), () => new Error('aborted'))).rejects.toThrow('aborted');
        reject(new Error('too late'));
        // Node reports unhandled rejections once the microtask queue drains; let it.
        await new Promise((resolve) => setImmediate(resolve));
        expect(unhandled).not.toHaveBeenCalled();
      } finally {
        process.off('unhandledRejection', unhandled);
      }
    });
  });

  describe('withDeadline', () => {
    it('resolves with the value in time and clears its timer', async () => {
      await expect(withDeadline(Promise.resolve(7), 60_000, () => new Error('late'))).resolves.toBe(7);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('passes the promise’s own rejection through and clears its timer', async () => {
      const failure = new Error('failed');
      await expect(withDeadline(Promise.reject(failure), 60_000, () => new Error('late'))).rejects.toBe(failure);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('rejects with onExpiry() after ms, not before', async () => {
      const expiry = new Error('late');
      const onExpiry = vi.fn(() => expiry);
      const state = track(withDeadline(never(), 1_000, onExpiry));
      await vi.advanceTimersByTimeAsync(999);
      expect(state.status).toBe('pending');
      expect(onExpiry).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(state).toEqual({ status: 'rejected', reason: expiry });
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});

describe('timers that keep no process alive', () => {
  it('a Node timer is unref\'d and handed back; ref and unref follow `keep`', () => {
    const timer = setTimeout(() => undefined, 60_000);
    try {
      expect(timer.hasRef()).toBe(true);
      expect(unrefTimer(timer)).toBe(timer);
      expect(timer.hasRef()).toBe(false);
      refTimer(timer, true);
      expect(timer.hasRef()).toBe(true);
      refTimer(timer, false);
      expect(timer.hasRef()).toBe(false);
    } finally {
      clearTimeout(timer);
    }
  });

  it('each method is called on its timer, and only the one asked for', () => {
    const calls: string[] = [];
    const timer = { ref() { calls.push(this === timer ? 'ref' : 'ref, unbound'); }, unref() { calls.push(this === timer ? 'unref' : 'unref, unbound'); } }; // prettier-ignore
    unrefTimer(timer);
    refTimer(timer, true);
    refTimer(timer, false);
    expect(calls).toEqual(['unref', 'ref', 'unref']);
  });

  it('a Web timer (a number), a timer without the methods, null or undefined: left as they are, nothing thrown', () => {
    for (const timer of [7, 0, {}, null, undefined]) {
      expect(unrefTimer(timer)).toBe(timer);
      expect(() => refTimer(timer, true)).not.toThrow();
      expect(() => refTimer(timer, false)).not.toThrow();
    }
  });
});

describe('sha256Hex: recent digests are remembered, within bounds', () => {
  const fresh = (label: string) => `${label}-${crypto.randomUUID()}`;
  const expected = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  afterEach(() => vi.restoreAllMocks());

  it('hashes a text once while it is recent, and always to the right digest', async () => {
    const digest = vi.spyOn(crypto.subtle, 'digest');
    const text = fresh('once');
    expect(await sha256Hex(text)).toBe(expected(text));
    expect(await sha256Hex(text)).toBe(expected(text));
    expect(digest).toHaveBeenCalledTimes(1);
  });

  it('keeps the 32 most recent: a 33rd text pushes the oldest out', async () => {
    const texts = Array.from({ length: 33 }, (_, i) => fresh(`many-${i}`));
    for (const text of texts) await sha256Hex(text);
    const digest = vi.spyOn(crypto.subtle, 'digest');
    expect(await sha256Hex(texts[32]!)).toBe(expected(texts[32]!));
    expect(digest).toHaveBeenCalledTimes(0);
    expect(await sha256Hex(texts[0]!)).toBe(expected(texts[0]!));
    expect(digest).toHaveBeenCalledTimes(1);
  });

  it('never keeps a text longer than 32 K characters', async () => {
    const long = fresh('long').padEnd(32 * 1024 + 1, 'x');
    const digest = vi.spyOn(crypto.subtle, 'digest');
    expect(await sha256Hex(long)).toBe(expected(long));
    expect(await sha256Hex(long)).toBe(expected(long));
    expect(digest).toHaveBeenCalledTimes(2);
  });
});
