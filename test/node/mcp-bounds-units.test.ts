/**
 * Unit tests for src/core/mcp/bounds.ts: the opt-in bounds' construction checks (each key,
 * each edge of a timer's range, the message that names the bad value without quoting much of
 * it), `requireBounds` naming every missing bound, and `callBounds`, which turns the timeouts
 * into one call's hard deadline and idle window after a reconnect spent part of them. The
 * suites reach these through `mcp()` and real servers; here each rule meets its edges.
 */
import { describe, expect, it } from 'vitest';
import { assertRequiredBounds, BOUND_CHECKS, callBounds, MAX_CALL_WINDOWS, type McpBounds } from '../../src/core/mcp/bounds.js';

const MAX_TIMER_MS = 2 ** 31 - 1;
const check = (key: string, value: unknown) => BOUND_CHECKS[key]!(value);

describe('the count bounds and requireBounds', () => {
  it.each(['maxTools', 'maxPages', 'maxSchemaBytes'])('%s takes a positive safe integer', (key) => {
    expect([check(key, 1), check(key, Number.MAX_SAFE_INTEGER)]).toEqual([undefined, undefined]);
    expect(check(key, 0)).toBe('a positive integer (got 0)');
    expect(check(key, -1)).toBe('a positive integer (got -1)');
    expect(check(key, 1.5)).toBe('a positive integer (got 1.5)');
    expect(check(key, 2 ** 53)).toBe(`a positive integer (got ${2 ** 53})`);
    expect(check(key, '10')).toBe('a positive integer (got "10")');
    expect(check(key, 'x'.repeat(50))).toBe(`a positive integer (got "${'x'.repeat(40)}")`);
    expect(check(key, [1])).toBe('a positive integer (got an array)');
    expect(check(key, { n: 1 })).toBe('a positive integer (got an object)');
    expect(check(key, null)).toBe('a positive integer (got null)');
  });

  it('requireBounds is true or false', () => {
    expect([check('requireBounds', true), check('requireBounds', false)]).toEqual([undefined, undefined]);
    expect(check('requireBounds', 'yes')).toBe('true or false');
  });
});

describe('timeouts', () => {
  const keys = ['connectMs', 'listMs', 'callMs', 'discoveryMs', 'maxCallMs'];

  it('an object whose keys are the timeouts; anything else names them all', () => {
    const expected = 'an object with connectMs, listMs, callMs, discoveryMs, maxCallMs, resetOnProgress';
    expect([check('timeouts', null), check('timeouts', [1]), check('timeouts', 5)]).toEqual([expected, expected, expected]);
    expect(check('timeouts', {})).toBeUndefined();
    expect(() => check('timeouts', { callMS: 5 })).toThrow(
      expect.objectContaining({
        code: 'config.unknown_key',
        message: "mcp(): 'timeouts.callMS' is not a timeout (allowed: connectMs, listMs, callMs, discoveryMs, maxCallMs, resetOnProgress)",
      }),
    );
  });

  it.each(keys)('%s takes any positive number of ms up to 2^31 - 1, or undefined', (key) => {
    for (const ms of [0.5, 1, MAX_TIMER_MS, undefined]) expect(check('timeouts', { [key]: ms })).toBeUndefined();
    for (const ms of [0, -1, MAX_TIMER_MS + 1, Number.POSITIVE_INFINITY, Number.NaN, '100', null]) {
      expect(() => check('timeouts', { [key]: ms })).toThrow(
        expect.objectContaining({ code: 'config.invalid_value', message: expect.stringMatching(new RegExp(`^mcp\\(\\): 'timeouts\\.${key}' must be a positive number of milliseconds up to ${MAX_TIMER_MS} \\(got `)) as unknown }),
      );
    }
  });

  it('resetOnProgress is true or false', () => {
    expect([check('timeouts', { resetOnProgress: true }), check('timeouts', { resetOnProgress: false })]).toEqual([undefined, undefined]);
    expect(() => check('timeouts', { resetOnProgress: 1 })).toThrow("mcp(): 'timeouts.resetOnProgress' must be true or false (got 1)");
  });

  it('maxCallMs is never below callMs; equal is allowed, and either alone is', () => {
    expect(check('timeouts', { callMs: 100, maxCallMs: 100 })).toBeUndefined();
    expect(check('timeouts', { maxCallMs: 1 })).toBeUndefined();
    expect(() => check('timeouts', { callMs: 100, maxCallMs: 99 })).toThrow("mcp(): 'timeouts.maxCallMs' (99) must be at least 'timeouts.callMs' (100)");
  });
});

describe('requireBounds', () => {
  const all: McpBounds = { maxTools: 1, maxPages: 1, maxSchemaBytes: 1, timeouts: { discoveryMs: 1 }, requireBounds: true };
  /** `all` without the given bounds. */
  const without = (...keys: (keyof McpBounds)[]): McpBounds => Object.fromEntries(Object.entries(all).filter(([key]) => !keys.includes(key as keyof McpBounds)));

  it('with every bound declared, or without requireBounds, nothing is refused', () => {
    expect(() => assertRequiredBounds(all)).not.toThrow();
    expect(() => assertRequiredBounds({})).not.toThrow();
    expect(() => assertRequiredBounds({ requireBounds: false })).not.toThrow();
  });

  it('names each missing bound, one or all at once', () => {
    expect(() => assertRequiredBounds(without('maxPages'))).toThrow(
      expect.objectContaining({ code: 'config.bounds_required', message: 'mcp(): requireBounds is set, but maxPages is not declared' }),
    );
    expect(() => assertRequiredBounds({ requireBounds: true, timeouts: { callMs: 5 } })).toThrow(
      'mcp(): requireBounds is set, but maxTools, maxPages, maxSchemaBytes, timeouts.discoveryMs are not declared',
    );
    for (const key of ['maxTools', 'maxSchemaBytes'] as const) {
      expect(() => assertRequiredBounds(without(key))).toThrow(`but ${key} is not declared`);
    }
    expect(() => assertRequiredBounds({ ...all, timeouts: {} })).toThrow('but timeouts.discoveryMs is not declared');
    expect(() => assertRequiredBounds({ ...without('maxTools'), timeouts: {} })).toThrow('but maxTools, timeouts.discoveryMs are not declared');
  });
});

describe('callBounds: one call', () => {
  it('without resetOnProgress: callMs, else maxCallMs, else the SDK default (no timeout given)', () => {
    expect(callBounds(undefined)).toEqual({});
    expect(callBounds({})).toEqual({});
    expect(callBounds({ callMs: 500, maxCallMs: 900 })).toEqual({ timeout: 500 });
    expect(callBounds({ maxCallMs: 900 })).toEqual({ timeout: 900 });
    expect(callBounds({ callMs: 500, resetOnProgress: false })).toEqual({ timeout: 500 });
  });

  it('with resetOnProgress: callMs is the idle window, the hard deadline maxCallMs or 10 windows', () => {
    expect(MAX_CALL_WINDOWS).toBe(10);
    expect(callBounds({ callMs: 500, resetOnProgress: true })).toEqual({ timeout: 5_000, idleMs: 500 });
    expect(callBounds({ callMs: 500, maxCallMs: 700, resetOnProgress: true })).toEqual({ timeout: 700, idleMs: 500 });
    expect(callBounds({ resetOnProgress: true })).toEqual({ timeout: 600_000, idleMs: 60_000 });
    expect(callBounds({ callMs: MAX_TIMER_MS, resetOnProgress: true })).toEqual({ timeout: MAX_TIMER_MS, idleMs: MAX_TIMER_MS });
  });

  it('time spent on a reconnect comes off the hard deadline, never below 1 ms, and never off the idle window', () => {
    expect(callBounds({ callMs: 500 }, 200)).toEqual({ timeout: 300 });
    expect(callBounds({ callMs: 500 }, 500)).toEqual({ timeout: 1 });
    expect(callBounds({ callMs: 500 }, 9_999)).toEqual({ timeout: 1 });
    expect(callBounds({ callMs: 500, resetOnProgress: true }, 1_000)).toEqual({ timeout: 4_000, idleMs: 500 });
    expect(callBounds({}, 1_000)).toEqual({});
  });
});
