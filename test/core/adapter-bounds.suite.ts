/**
 * The adapters' time and count bounds, each pinned from both sides (issue 24): `maxRetries`
 * is capped at 10; a `timeoutMs` of N fails an attempt in about N (not 2N, not N/2), whether
 * the provider never answers or stalls mid-body; a server's retry-after is waited out, no
 * less and not much more; computed backoff starts at 250-500 ms, doubles, and stops growing at
 * 8 s; no wait asked for exceeds 60 s. The adapters take no clock, so waits are measured in
 * real time, with the slack below.
 */
import { retryDelay } from '../../src/adapters/backoff.js';
import type { ProviderError } from '../../src/adapters/errors.js';
import type { FetchLike } from '../../src/adapters/options.js';
import type { ModelRequest } from '../../src/core/index.js';
import { bodyFetch } from '../fixtures/provider-bodies.js';
import { PROVIDER_FLAVOURS } from '../fixtures/provider-flavours.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;

export function adapterBoundsSuite(h: SuiteHarness): void {
  const { expect } = h;
  /**
   * `elapsed` is `bound` ms give or take what the machine adds: never more than 5 ms early
   * (timers may round down), and later by less than 0.8 × bound, so a bound that doubled or
   * halved fails either way. Not tighter: the gate runs two test files at once beside the Node
   * 22/24 lane, and timers there were seen 268 ms (Chromium) and 276 ms (Node) late on 500.
   */
  const expectAbout = (elapsed: number, bound: number) => {
    expect(elapsed).toBeGreaterThanOrEqual(bound - 5);
    expect(elapsed).toBeLessThan(bound + 0.8 * bound);
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    h.describe(`adapter bounds: ${flavour.name}`, () => {
      h.it('maxRetries is capped at 10: asking for 11 or 50 sends 11 requests, 9 sends 10', async () => {
        for (const [asked, sent] of [[9, 10], [10, 11], [11, 11], [50, 11]] as const) {
          let calls = 0;
          const fetch: FetchLike = async () => {
            calls += 1;
            const reply = flavour.error(503, 'unavailable');
            return new Response(JSON.stringify(reply.body), { status: 503, headers: { 'retry-after-ms': '0' } });
          };
          const error = (await caught(() => flavour.adapter({ apiKey: KEY, fetch, maxRetries: asked }).generate(REQUEST, live()))) as ProviderError;
          expect(error).toMatchObject({ code: 'model.failed', retryable: true, status: 503 });
          expect(calls).toBe(sent);
        }
      });

      h.it('a timeoutMs of 500 ends a provider that never answers in about 500 ms', async () => {
        const server = flavour.server();
        server.queue({ hang: true });
        const started = Date.now();
        const error = (await caught(() => flavour.adapter({ apiKey: KEY, fetch: server.fetch, timeoutMs: 500 }).generate(REQUEST, live()))) as ProviderError;
        expectAbout(Date.now() - started, 500);
        expect(error).toMatchObject({ code: 'model.failed', retryable: false, message: `${flavour.id} did not answer within 500 ms` });
      });

      h.it('the timeout covers reading the body: a body that stalls ends in about 500 ms, its stream let go', async () => {
        const { fetch, log } = bodyFetch({ head: '{"content":[', stall: true });
        const started = Date.now();
        const error = (await caught(() => flavour.adapter({ apiKey: KEY, fetch, timeoutMs: 500, maxRetries: 3 }).generate(REQUEST, live()))) as ProviderError;
        expectAbout(Date.now() - started, 500);
        expect(error).toMatchObject({ code: 'model.failed', retryable: false, message: `${flavour.id} did not answer within 500 ms` });
        expect(log).toMatchObject({ requests: 1, cancelled: 1 });
      });

      for (const [header, value, wait] of [['retry-after-ms', '400', 400], ['retry-after', '1', 1000]] as const) {
        h.it(`${header}: ${value} is waited out: the next request comes ${wait} ms later, not sooner, not much later`, async () => {
            const server = flavour.server();
          server.queue(flavour.error(429, 'slow down', { [header]: value }), flavour.text('ok'));
          const sent: number[] = [];
          const fetch: FetchLike = (input, init) => (sent.push(Date.now()), server.fetch(input, init));
          expect((await flavour.adapter({ apiKey: KEY, fetch }).generate(REQUEST, live())).text).toBe('ok');
          expect(sent.length).toBe(2);
          expectAbout(sent[1]! - sent[0]!, wait);
        });
      }
    });
  }

  h.describe('adapter backoff', () => {
    const headers = (init: Record<string, string>) => new Headers(init);
    const lowest = () => 0;
    const highest = () => 1 - 1e-9;

    h.it('computed backoff: 250-500 ms first, doubling, at most 8 s from the fifth retry on', () => {
      const steps = [500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000];
      for (const [attempt, step] of steps.entries()) {
        expect(retryDelay(attempt, undefined, 0, lowest)).toBe(step / 2);
        const high = retryDelay(attempt, headers({}), 0, highest);
        expect(high).toBeLessThan(step);
        expect(high).toBeGreaterThan(step - 0.001);
      }
      expect(retryDelay(40, undefined, 0, highest)).toBeLessThan(8_000);
      expect(retryDelay(40, undefined, 0, lowest)).toBe(4_000);
    });

    h.it('a server may ask for up to 60 s, in seconds, milliseconds or a date; more is cut to 60 s', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(retryDelay(0, headers({ 'retry-after': '59' }), now)).toBe(59_000);
      expect(retryDelay(0, headers({ 'retry-after': '60' }), now)).toBe(60_000);
      expect(retryDelay(0, headers({ 'retry-after': '3600' }), now)).toBe(60_000);
      expect(retryDelay(0, headers({ 'retry-after-ms': '61000' }), now)).toBe(60_000);
      expect(retryDelay(0, headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
      expect(retryDelay(0, headers({ 'retry-after': 'Thu, 01 Jan 2026 00:02:00 GMT' }), now)).toBe(60_000);
      expect(retryDelay(0, headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
      // What the server asked for wins over the computed backoff, even when it asked for less.
      expect(retryDelay(5, headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now, highest)).toBe(250);
      // Unreadable: the computed backoff applies.
      expect(retryDelay(0, headers({ 'retry-after': 'soon' }), now, lowest)).toBe(250);
    });
  });
}
