/**
 * Bounded provider reads (issue 23, item 3): an answer body is refused from its content-length
 * before a byte is read, counted while it is read whatever the header said (a lying length, a
 * chunked body with none), never read past `maxResponseBytes`, and the stream let go when the
 * adapter stops. Overflow and bytes that are not UTF-8 are `model.protocol`, not retried. An
 * error body is read only as far as its detail needs.
 */
import type { ProviderError } from '../../src/adapters/errors.js';
import type { ModelRequest } from '../../src/core/index.js';
import { bodyFetch, type BodyPlan } from '../fixtures/provider-bodies.js';
import { PROVIDER_FLAVOURS, type ProviderFlavour } from '../fixtures/provider-flavours.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectConfigError } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;
const CAP = 64 * 1024;
const CHUNK = 'a'.repeat(4096);
const DEFAULT_CAP = 32 * 1024 * 1024;

/** A 200 body of this provider's shape whose text is whatever comes between head and tail. */
function textBody(flavour: ProviderFlavour): { head: string; tail: string } {
  return flavour.name === 'anthropic'
    ? { head: '{"content":[{"type":"text","text":"', tail: '"}],"stop_reason":"end_turn"}' }
    : { head: '{"choices":[{"message":{"role":"assistant","content":"', tail: '"},"finish_reason":"stop"}]}' };
}

const concat = (...parts: (string | number[])[]): Uint8Array => {
  const encoded = parts.map((part) => (typeof part === 'string' ? new TextEncoder().encode(part) : Uint8Array.from(part)));
  const out = new Uint8Array(encoded.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of encoded) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
};

export function adapterReadsSuite(h: SuiteHarness): void {
  const { expect } = h;
  const failing = async (flavour: ProviderFlavour, plan: BodyPlan, options: { maxResponseBytes?: number; maxRetries?: number } = {}) => {
    const { fetch, log } = bodyFetch(plan);
    const model = flavour.adapter({ apiKey: KEY, fetch, maxRetries: 3, ...options });
    const error = (await caught(() => model.generate(REQUEST, live()))) as ProviderError;
    expect(h.lib.RulvarError.is(error)).toBe(true);
    return { error, log };
  };
  const expectProtocol = (error: ProviderError, message: string | RegExp) => {
    expect(error.code).toBe('model.protocol');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(message);
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    const { head, tail } = textBody(flavour);
    h.describe(`adapter reads are bounded: ${flavour.name}`, () => {
      h.it('a content-length past the default 32 MiB is refused before a byte is read, and not fetched again', async () => {
        const { error, log } = await failing(flavour, { headers: { 'content-length': String(600 * 1024 * 1024) }, head, chunk: CHUNK, repeat: Infinity });
        expectProtocol(error, `${flavour.id} answered HTTP 200 with a body of 629145600 bytes, more than maxResponseBytes (${DEFAULT_CAP})`);
        expect(log).toEqual({ requests: 1, pulled: 0, cancelled: 1 });
      });

      h.it('a content-length that lies is not believed: the read stops at maxResponseBytes', async () => {
        const { error, log } = await failing(flavour, { headers: { 'content-length': '10' }, head, chunk: CHUNK, repeat: Infinity }, { maxResponseBytes: CAP });
        expectProtocol(error, `a body of more than maxResponseBytes (${CAP})`);
        expect(log.requests).toBe(1);
        expect(log.pulled).toBeGreaterThan(CAP);
        expect(log.pulled).toBeLessThanOrEqual(CAP + CHUNK.length);
        expect(log.cancelled).toBe(1);
      });

      h.it('a chunked body with no length that never ends stops at maxResponseBytes', async () => {
        const { error, log } = await failing(flavour, { head, chunk: CHUNK, repeat: Infinity }, { maxResponseBytes: CAP });
        expectProtocol(error, 'more than maxResponseBytes');
        expect(log).toMatchObject({ requests: 1, cancelled: 1 });
        expect(log.pulled).toBeLessThanOrEqual(CAP + CHUNK.length);
      });

      h.it('a body of exactly maxResponseBytes is read; one byte more is refused', async () => {
        const body = concat(head, 'x'.repeat(1000), tail);
        const { fetch } = bodyFetch({ head: body });
        const answer = await flavour.adapter({ apiKey: KEY, fetch, maxResponseBytes: body.byteLength }).generate(REQUEST, live());
        expect(answer.text).toBe('x'.repeat(1000));
        const { error } = await failing(flavour, { head: body }, { maxResponseBytes: body.byteLength - 1 });
        expectProtocol(error, `more than maxResponseBytes (${body.byteLength - 1})`);
      });

      h.it('bytes that are not UTF-8 are model.protocol and not fetched again; a character split across chunks is not', async () => {
        const { error, log } = await failing(flavour, { head: concat(head, [0x61, 0xff, 0xfe, 0x62], tail) });
        expectProtocol(error, `${flavour.id} answered HTTP 200 with a body that is not UTF-8`);
        expect(log.requests).toBe(1);
        const { fetch } = bodyFetch({ head: concat(head, 'caf', [0xc3]), chunk: Uint8Array.from([0xa9]), repeat: 1, tail });
        expect((await flavour.adapter({ apiKey: KEY, fetch }).generate(REQUEST, live())).text).toBe('café');
      });

      h.it('a flood of an error body is read only up to 64 KiB, and still says what the provider said', async () => {
        const { error, log } = await failing(flavour, { status: 500, head: '{"error":{"message":"boom"}} ', chunk: CHUNK, repeat: Infinity }, { maxRetries: 0 });
        expect(error).toMatchObject({ code: 'model.failed', retryable: true, status: 500 });
        expect(error.message).toMatch(new RegExp(`^${flavour.id} answered HTTP 500: \\{"error"`));
        expect(log.pulled).toBeLessThanOrEqual(64 * 1024 + CHUNK.length);
        expect(log.cancelled).toBe(1);
      });

      h.it('maxResponseBytes must be a positive integer', async () => {
        for (const maxResponseBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
          const message = await expectConfigError(h, () => flavour.adapter({ apiKey: KEY, maxResponseBytes }), 'config.invalid_value');
          expect(message).toMatch(/^maxResponseBytes must be a positive integer/);
        }
      });
    });
  }
}
