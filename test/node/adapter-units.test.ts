/**
 * Unit tests of the adapters' shared parts (src/adapters): the wait before a retry (what a
 * server asks for, in each form, capped; else backoff with jitter), every transport option
 * checked with a message that names it, the key from the environment only when it is set,
 * and what an error says of a provider's body. The suites reach these through whole requests,
 * where a wait of 2 s instead of 2.5 s or a message naming no option still passes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/adapters/backoff.js';
import { errorDetail, isRetryableStatus, providerError, scrubMessage } from '../../src/adapters/errors.js';
import { findApiKey, retriesOf, transportOf } from '../../src/adapters/options.js';
import { ConfigError } from '../../src/core/errors.js';
import { Redactor } from '../../src/core/secrets/redactor.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const after = (headers: Record<string, string>) => retryDelay(0, new Headers(headers), NOW, () => 0);

describe('retryDelay', () => {
  it('retry-after-ms first, in decimal milliseconds', () => {
    expect(after({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(after({ 'retry-after-ms': '12.25', 'retry-after': '9' })).toBe(12.25);
    for (const bad of ['1e3', '-5', '1.', '.5', '5s', '1.5.5', '']) expect(after({ 'retry-after-ms': bad, 'retry-after': '2' })).toBe(2000);
  });

  it('retry-after in seconds (decimals too) or as an HTTP date; blank or unreadable asks for nothing', () => {
    expect(after({ 'retry-after': '3' })).toBe(3000);
    expect(after({ 'retry-after': '2.25' })).toBe(2250);
    expect(after({ 'retry-after': new Date(NOW + 4_000).toUTCString() })).toBe(4000);
    expect(after({ 'retry-after': new Date(NOW - 4_000).toUTCString() })).toBe(0);
    for (const bad of ['', '   ', 'soon', '1.x', '3e1']) expect(after({ 'retry-after': bad })).toBe(250);
  });

  it('a server-requested wait is cut to 60 s; backoff doubles from 500 ms to 8 s with jitter in [0.5, 1)', () => {
    expect(after({ 'retry-after': '3600' })).toBe(60_000);
    expect(after({ 'retry-after-ms': '60001' })).toBe(60_000);
    expect([0, 1, 2, 3, 4, 10].map((attempt) => retryDelay(attempt, undefined, NOW, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    expect(retryDelay(1, new Headers(), NOW, () => 0.999)).toBeCloseTo(999.5, 5);
  });
});

describe('transport options', () => {
  const refusal = (work: () => unknown): string => {
    try {
      work();
    } catch (error) {
      if (error instanceof ConfigError) return `${error.code}: ${error.message}`;
      throw error;
    }
    return 'accepted';
  };

  it('each bound names itself; times may be fractional, sizes must be integers', () => {
    expect(refusal(() => transportOf({ timeoutMs: 0 }, 'k'))).toBe('config.invalid_value: timeoutMs must be a positive number, got 0');
    expect(refusal(() => transportOf({ idleTimeoutMs: Number.POSITIVE_INFINITY }, 'k'))).toBe('config.invalid_value: idleTimeoutMs must be a positive number, got Infinity');
    expect(refusal(() => transportOf({ maxEventBytes: 1.5 }, 'k'))).toBe('config.invalid_value: maxEventBytes must be a positive integer, got 1.5');
    expect(refusal(() => transportOf({ maxResponseBytes: -1 }, 'k'))).toBe('config.invalid_value: maxResponseBytes must be a positive integer, got -1');
    const fractional = transportOf({ timeoutMs: 0.5, idleTimeoutMs: 2.5 }, 'k');
    expect([fractional.timeoutMs, fractional.idleTimeoutMs]).toEqual([0.5, 2.5]);
    expect(refusal(() => transportOf({ timeoutMs: -0.5 }, 'k'))).toContain('timeoutMs must be a positive number');
  });

  it('maxRetries is a non-negative integer, capped at 10', () => {
    expect([0, 3, 10, 11, 1_000].map((maxRetries) => retriesOf({ maxRetries }))).toEqual([0, 3, 10, 10, 10]);
    for (const bad of [-1, 1.5, Number.NaN]) expect(refusal(() => retriesOf({ maxRetries: bad }))).toBe(`config.invalid_value: maxRetries must be a non-negative integer, got ${String(bad)}`);
  });

  it('the redactor knows the key and every header value, and only text values', () => {
    const redactor = transportOf({ headers: { 'x-tenant': 'tenant-0123456789', other: 7 as never } }, 'sk-key-0123456789').redactor;
    expect(redactor.text('sk-key-0123456789 and tenant-0123456789')).not.toMatch(/0123456789/);
    expect(transportOf({ headers: { a: 'header-value-0123' } }, undefined).redactor.text('header-value-0123')).not.toContain('header-value-0123');
  });
});

describe('findApiKey', () => {
  const variable = 'RULVAR_UNIT_TEST_KEY';
  afterEach(() => {
    delete process.env[variable];
  });

  it('the given key first, then the variable when it is set and not empty', () => {
    process.env[variable] = 'from-env';
    expect(findApiKey('given', variable)).toBe('given');
    expect(findApiKey(undefined, variable)).toBe('from-env');
    process.env[variable] = '';
    expect(findApiKey(undefined, variable)).toBeUndefined();
    delete process.env[variable];
    expect(findApiKey(undefined, variable)).toBeUndefined();
  });
});

describe('errors of a provider', () => {
  const redactor = Redactor.of(['sk-secret-0123456789']);

  it('the detail is the JSON error message (nested or flat), else the text, else says there was none', () => {
    expect(errorDetail('{"error":{"message":"nested"}}')).toBe('nested');
    expect(errorDetail('{"error":"flat"}')).toBe('flat');
    expect(errorDetail('{"message":"top"}')).toBe('top');
    expect(errorDetail('{"error":null,"message":"top"}')).toBe('top');
    expect(errorDetail('{"error":{"message":5}}')).toBe('{"error":{"message":5}}');
    expect(errorDetail('  <html>bad gateway</html>\n')).toBe('<html>bad gateway</html>');
    expect(errorDetail('null')).toBe('null');
    expect(errorDetail('   ')).toBe('no error body');
  });

  it('a message is scrubbed of the secrets and of any Bearer token; status only when known', () => {
    expect(scrubMessage('key sk-secret-0123456789, auth Bearer   tok.en-1 then bearer x', redactor)).toBe('key [redacted], auth Bearer [redacted] then bearer [redacted]');
    const withStatus = providerError('model.failed', 'm', { retryable: true, status: 503, redactor });
    expect([withStatus.retryable, withStatus.status, withStatus.code]).toEqual([true, 503, 'model.failed']);
    expect(Object.hasOwn(providerError('model.failed', 'm', { retryable: false, redactor }), 'status')).toBe(false);
    expect([429, 500, 529, 599, 400, 404, 499].map(isRetryableStatus)).toEqual([true, true, true, true, false, false, false]);
  });
});
