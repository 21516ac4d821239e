/**
 * How both provider adapters fail, against a server speaking each wire format in process:
 * 429/5xx/529 retried with backoff inside the adapter (the server's retry-after first), 4xx
 * not retried, the `retryable` flag the engine reads once the adapter gives up, bodies that
 * are not the expected JSON, the caller's abort mid-request and mid-backoff, and the timeout.
 * Keeping secrets out of errors is adapter-secrets.suite.ts; the bounds, timed from both
 * sides, are adapter-bounds.suite.ts.
 */
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

  h.describe('adapters throw only RulvarErrors', () => {
    /** A RulvarError whose `retryable` is a plain boolean data property: reading it runs no code. */
    const expectSafe = (error: unknown, code: string, retryable: boolean) => {
      expect(h.lib.RulvarError.is(error)).toBe(true);
      expect((error as ProviderError).code).toBe(code);
      const property = Object.getOwnPropertyDescriptor(error, 'retryable');
      expect(property?.get).toBeUndefined();
      expect(property?.value).toBe(retryable);
      expect(typeof (error as Error).message).toBe('string');
      expect((error as Error).message).not.toContain(KEY);
    };
    const hostile: [string, () => unknown][] = [
      ['a Proxy that throws on every trap', () => new Proxy({}, { get: () => { throw new Error('trap'); }, getPrototypeOf: () => { throw new Error('trap'); } })],
      ['an Error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('getter'); } })],
      ['a string quoting the key', () => `refused ${KEY}`],
      ['null', () => null],
      ['an object without a prototype', () => Object.create(null) as unknown],
    ];

    for (const flavour of PROVIDER_FLAVOURS) {
      for (const [what, make] of hostile) {
        h.it(`${flavour.name}: a fetch that throws ${what} is a retryable model.failed`, async () => {
          const fetch = async (): Promise<Response> => {
            throw make();
          };
          expectSafe(await caught(() => flavour.adapter({ apiKey: KEY, fetch, maxRetries: 0 }).generate(REQUEST, live())), 'model.failed', true);
        });
      }

      h.it(`${flavour.name}: a fetch that resolves with no Response is model.protocol, not retried`, async () => {
        for (const answer of [undefined, null, 42, {}, { ok: true, status: 200 }]) {
          let calls = 0;
          const fetch = async () => (calls += 1, answer as unknown as Response);
          const error = await caught(() => flavour.adapter({ apiKey: KEY, fetch, maxRetries: 3 }).generate(REQUEST, live()));
          expectSafe(error, 'model.protocol', false);
          expect((error as Error).message).toBe(`the fetch of ${flavour.id} answered something that is not a Response`);
          expect(calls).toBe(1);
        }
      });

      h.it(`${flavour.name}: a request that cannot be encoded is model.failed, not retried, nothing sent`, async () => {
        const cyclic: Record<string, unknown> = {};
        cyclic['self'] = cyclic;
        const bad: unknown[] = [
          { ...REQUEST, messages: [{ role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 't', input: cyclic }] }] },
          { ...REQUEST, messages: [{ role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 't', input: { n: 1n } }] }] },
          { ...REQUEST, messages: [null] },
          { ...REQUEST, messages: 'not a list' },
        ];
        for (const request of bad) {
          let calls = 0;
          const fetch = async () => (calls += 1, new Response('{}'));
          const error = await caught(() => flavour.adapter({ apiKey: KEY, fetch, maxRetries: 3 }).generate(request as ModelRequest, live()));
          expectSafe(error, 'model.failed', false);
          expect((error as Error).message).toMatch(new RegExp(`^${flavour.id} could not encode the request as JSON`));
          expect(calls).toBe(0);
        }
      });
    }
  });
}
