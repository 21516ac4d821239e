/**
 * How both provider adapters fail, against a server speaking each wire format in process:
 * 429/5xx/529 retried with backoff inside the adapter (the server's retry-after first), 4xx
 * not retried, the `retryable` flag the engine reads once the adapter gives up, bodies that
 * are not the expected JSON, the caller's abort mid-request and mid-backoff, and the timeout.
 * Keeping secrets out of errors is adapter-secrets.suite.ts.
 */
import { retryAfter, retryDelay, MAX_BACKOFF_MS, MAX_RETRY_AFTER_MS } from '../../src/adapters/backoff.js';
import type { ProviderError } from '../../src/adapters/errors.js';
import type { ModelRequest } from '../../src/core/index.js';
import { PROVIDER_FLAVOURS } from '../fixtures/provider-flavours.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;

export function adapterFailuresSuite(h: SuiteHarness): void {
  const { expect } = h;
  const providerError = async (work: () => Promise<unknown>, code: string): Promise<ProviderError> => {
    const error = (await caught(work)) as ProviderError;
    expect(h.lib.RulvarError.is(error)).toBe(true);
    expect(error.code).toBe(code);
    return error;
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    const setup = (options: { maxRetries?: number; timeoutMs?: number } = {}) => {
      const server = flavour.server();
      return { server, model: flavour.adapter({ apiKey: KEY, fetch: server.fetch, ...options }) };
    };

    h.describe(`adapter failures: ${flavour.name}`, () => {
      h.it('a 429 with retry-after is retried after the asked wait, then succeeds', async () => {
        const { server, model } = setup();
        server.queue(flavour.error(429, 'slow down', { 'retry-after': '1' }), flavour.text('ok'));
        const started = Date.now();
        expect((await model.generate(REQUEST, live())).text).toBe('ok');
        expect(server.requests.length).toBe(2);
        expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      });

      h.it('a 500 then a success: retried with backoff, the answer returned', async () => {
        const { server, model } = setup();
        server.queue(flavour.error(500, 'boom'), flavour.text('recovered'));
        expect((await model.generate(REQUEST, live())).text).toBe('recovered');
        expect(server.requests.length).toBe(2);
      });

      h.it('a 400 is not retried and is not retryable for the engine', async () => {
        const { server, model } = setup({ maxRetries: 2 });
        server.queue(flavour.error(400, 'messages: field required'));
        const error = await providerError(() => model.generate(REQUEST, live()), 'model.failed');
        expect(server.requests.length).toBe(1);
        expect(error.retryable).toBe(false);
        expect(error.status).toBe(400);
        expect(error.message).toBe(`${flavour.id} answered HTTP 400: messages: field required`);
      });

      h.it('retries spent: 1 + maxRetries requests, then an error the engine may retry', async () => {
        const { server, model } = setup({ maxRetries: 2 });
        for (let i = 0; i < 3; i += 1) server.queue(flavour.error(503, 'unavailable', { 'retry-after': '0' }));
        const error = await providerError(() => model.generate(REQUEST, live()), 'model.failed');
        expect(server.requests.length).toBe(3);
        expect(error.retryable).toBe(true);
        expect(error.status).toBe(503);
      });

      h.it('maxRetries 0 sends one request; the 429 stays retryable for the engine', async () => {
        const { server, model } = setup({ maxRetries: 0 });
        server.queue(flavour.error(429, 'rate limited', { 'retry-after': '0' }));
        expect((await providerError(() => model.generate(REQUEST, live()), 'model.failed')).retryable).toBe(true);
        expect(server.requests.length).toBe(1);
      });

      h.it('the engine retries a retryable adapter error with its own policy', async () => {
        const { server, model } = setup({ maxRetries: 0 });
        server.queue(flavour.error(429, 'rate limited', { 'retry-after': '0' }), flavour.text('done'));
        const engine = h.lib.createEngine({ adapters: [model], defaults: { model: `${flavour.id}:m`, retry: { baseDelayMs: 1 } } });
        const outcome = await engine.run(h.lib.defineWorkflow({ name: 'retry' }, (ctx) => ctx.agent('go')), undefined).result;
        expect(outcome).toMatchObject({ status: 'completed', value: { text: 'done' } });
        expect(server.requests.length).toBe(2);
      });

      h.it('a body that is not JSON is model.protocol, not retried', async () => {
        const { server, model } = setup();
        server.queue({ raw: '<html>bad gateway</html>' });
        const error = await providerError(() => model.generate(REQUEST, live()), 'model.protocol');
        expect(error.retryable).toBe(false);
        expect(error.message).toMatch(/not JSON/);
        expect(server.requests.length).toBe(1);
      });

      h.it('JSON that is not the provider response shape is model.protocol', async () => {
        const { server, model } = setup();
        server.queue(flavour.wrongShape);
        await providerError(() => model.generate(REQUEST, live()), 'model.protocol');
      });

      h.it('an abort mid-request rejects at once with the signal reason', async () => {
        const { server, model } = setup();
        server.queue({ hang: true });
        const controller = new AbortController();
        const reason = new Error('caller gave up');
        setTimeout(() => controller.abort(reason), 50);
        const started = Date.now();
        expect(await caught(() => model.generate(REQUEST, controller.signal))).toBe(reason);
        expect(Date.now() - started).toBeLessThan(2_000);
      });

      h.it('a signal aborted before the call sends nothing', async () => {
        const { server, model } = setup();
        const reason = new Error('already gone');
        expect(await caught(() => model.generate(REQUEST, AbortSignal.abort(reason)))).toBe(reason);
        expect(server.requests.length).toBe(0);
      });

      h.it('an abort mid-backoff rejects without waiting out retry-after', async () => {
        const { server, model } = setup();
        server.queue(flavour.error(429, 'wait', { 'retry-after': '30' }));
        const controller = new AbortController();
        const reason = new Error('stop');
        setTimeout(() => controller.abort(reason), 100);
        const started = Date.now();
        expect(await caught(() => model.generate(REQUEST, controller.signal))).toBe(reason);
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(server.requests.length).toBe(1);
      });

      h.it('timeoutMs ends a hanging attempt with model.failed naming the bound', async () => {
        const { server, model } = setup({ timeoutMs: 100 });
        server.queue({ hang: true });
        const error = await providerError(() => model.generate(REQUEST, live()), 'model.failed');
        expect(error.message).toBe(`${flavour.id} did not answer within 100 ms`);
      });
    });
  }

  h.describe('adapter backoff', () => {
    const headers = (init: Record<string, string>) => new Headers(init);
    h.it('retry-after in seconds, as an HTTP date, as retry-after-ms; unreadable is ignored', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(retryAfter(headers({ 'retry-after': '3' }), now)).toBe(3_000);
      expect(retryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5_000);
      expect(retryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
      expect(retryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
      expect(retryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    });

    h.it('a huge retry-after is capped; computed backoff grows, is jittered and capped', () => {
      expect(retryDelay(0, headers({ 'retry-after': '3600' }))).toBe(MAX_RETRY_AFTER_MS);
      for (let i = 0; i < 50; i += 1) {
        const first = retryDelay(0, undefined);
        expect(first).toBeGreaterThanOrEqual(250);
        expect(first).toBeLessThan(500);
        expect(retryDelay(1, undefined)).toBeGreaterThanOrEqual(500);
        const late = retryDelay(20, headers({}));
        expect(late).toBeGreaterThanOrEqual(MAX_BACKOFF_MS / 2);
        expect(late).toBeLessThanOrEqual(MAX_BACKOFF_MS);
      }
    });
  });
}
