/**
 * Credentials never follow a redirect (issue 23, item 2), and bodies are bounded on a real
 * wire (item 3), with each runtime's own fetch against the provider host on loopback
 * (test/node/provider-host.ts): Node's undici, workerd's fetch and Chromium's, which differ in
 * what they re-send across a redirect and in what `redirect: 'manual'` hands back. Whatever
 * the runtime, a redirect of any kind, to another origin or the same one, is `model.protocol`,
 * not retried, and no request (so no key, no header value) reaches where it points.
 */
import type { ProviderError } from '../../src/adapters/errors.js';
import type { ModelRequest } from '../../src/core/index.js';
import { PROVIDER_FLAVOURS, type ProviderFlavour } from '../fixtures/provider-flavours.js';
import type { ProviderHostLog } from '../fixtures/provider-host-log.js';
import type { ProviderOrigins, SuiteHarness } from './harness.js';
import { caught, sleep } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const HEADER_KEY = 'azure-0f1e2d3c4b5a69788796a5b4';
const GATEWAY_TOKEN = 'gw-7c6b5a4938271605f4e3';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;

let cases = 0;
const caseId = (what: string) => `${what}-${Date.now()}-${(cases += 1)}`;

export function adapterRedirectsSuite(h: SuiteHarness): void {
  const host = h.providerHost;
  if (host === undefined) return;
  const { expect } = h;
  const origins = (): ProviderOrigins => {
    const found = host();
    if (found === undefined) throw new Error('the provider host is not known in this runtime');
    return found;
  };
  const logOf = async (id: string): Promise<ProviderHostLog> => (await fetch(`${origins().provider}/log/${id}`)).json() as Promise<ProviderHostLog>;
  const failure = async (flavour: ProviderFlavour, origin: string, options: { maxResponseBytes?: number } = {}) => {
    const headers = { 'api-key': HEADER_KEY, 'x-gateway-auth': `Token ${GATEWAY_TOKEN}` };
    const model = flavour.adapter({ apiKey: KEY, origin, headers, maxRetries: 3, ...options });
    const error = (await caught(() => model.generate(REQUEST, live()))) as ProviderError;
    expect(h.lib.RulvarError.is(error)).toBe(true);
    for (const secret of [KEY, HEADER_KEY, GATEWAY_TOKEN]) expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(secret);
    return error;
  };
  /** Polls the log until `check` holds; the client's close reaches the host a moment after the error. */
  const settled = async (id: string, check: (log: ProviderHostLog) => boolean): Promise<ProviderHostLog> => {
    const started = Date.now();
    for (;;) {
      const log = await logOf(id);
      if (check(log) || Date.now() - started > 2_000) return log;
      await sleep(20);
    }
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    h.describe(`adapter redirects are refused (${h.runtime} fetch): ${flavour.name}`, () => {
      for (const status of [301, 302, 303, 307, 308]) {
        for (const where of ['cross', 'same'] as const) {
          h.it(`a ${where}-origin ${status}: model.protocol, not retried, nothing sent where it points`, async () => {
            const id = caseId(`${flavour.name}-${status}-${where}`);
            const { provider, elsewhere } = origins();
            const error = await failure(flavour, `${provider}/redirect/${id}/${status}/${where}`);
            expect(error.code).toBe('model.protocol');
            expect(error.retryable).toBe(false);
            // Browsers hide an opaque redirect's status and target; Node and workerd name them.
            const target = where === 'cross' ? elsewhere : provider;
            const shown = h.runtime === 'chromium' ? 'a redirect whose status and target the runtime hides' : `HTTP ${status} to ${target}`;
            expect(error.message).toBe(`${flavour.id} answered a redirect (${shown}); redirects are not followed, so the request and its credentials go to ${provider} only`);
            const log = await logOf(id);
            expect(log.hits).toBe(1);
            expect(log.sink).toEqual([]);
          });
        }
      }

      // A stream opens through the same refusal; 307 and 308 are the ones that would re-send the body.
      for (const status of [307, 308]) {
        for (const where of ['cross', 'same'] as const) {
          h.it(`stream(): a ${where}-origin ${status} is model.protocol before any delta, nothing sent where it points`, async () => {
            const id = caseId(`${flavour.name}-stream-${status}-${where}`);
            const { provider } = origins();
            const headers = { 'api-key': HEADER_KEY, 'x-gateway-auth': `Token ${GATEWAY_TOKEN}` };
            const model = flavour.adapter({ apiKey: KEY, origin: `${provider}/redirect/${id}/${status}/${where}`, headers, maxRetries: 3 });
            const deltas: unknown[] = [];
            const error = (await caught(async () => {
              for await (const delta of model.stream!(REQUEST, live())) deltas.push(delta);
            })) as ProviderError;
            expect(h.lib.RulvarError.is(error)).toBe(true);
            expect(error).toMatchObject({ code: 'model.protocol', retryable: false });
            expect(error.message).toContain('redirects are not followed');
            for (const secret of [KEY, HEADER_KEY, GATEWAY_TOKEN]) expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(secret);
            expect(deltas).toEqual([]);
            const log = await logOf(id);
            expect(log.hits).toBe(1);
            expect(log.sink).toEqual([]);
          });
        }
      }
    });

    h.describe(`adapter reads are bounded on a real wire (${h.runtime} fetch): ${flavour.name}`, () => {
      h.it('a chunked flood is read to maxResponseBytes, then the connection is let go', async () => {
        const id = caseId(`${flavour.name}-flood`);
        const error = await failure(flavour, `${origins().provider}/flood/${id}`, { maxResponseBytes: 1024 * 1024 });
        expect(error).toMatchObject({ code: 'model.protocol', retryable: false });
        expect(error.message).toMatch(/more than maxResponseBytes \(1048576\)/);
        const log = await settled(id, (l) => l.closed);
        expect(log.hits).toBe(1);
        expect(log.closed).toBe(true);
        // What the socket buffers took besides: far below the 256 MiB the host would write to a reader that never stops.
        expect(log.written).toBeLessThan(32 * 1024 * 1024);
      });

      h.it('a content-length of 600 MiB is refused unread, and the connection let go', async () => {
        const id = caseId(`${flavour.name}-length`);
        const error = await failure(flavour, `${origins().provider}/length/${id}`);
        expect(error).toMatchObject({ code: 'model.protocol', retryable: false });
        expect(error.message).toMatch(/with a body of 629145600 bytes, more than maxResponseBytes \(33554432\)/);
        const log = await settled(id, (l) => l.closed);
        expect(log).toMatchObject({ hits: 1, closed: true });
      });
    });
  }
}
