/**
 * Secrets an adapter is given stay out of everything it produces: the API key, and every
 * value of the `headers` option (Azure's `api-key`, a gateway's `Token …`), even when the
 * server or a custom fetch echoes them back. Checked on the adapter's error and again through
 * the engine: the run's outcome, its events and its journal. A custom adapter that declares
 * its secrets through `redact` has its answers scrubbed by the engine before anything keeps them.
 */
import type { ProviderError } from '../../src/adapters/errors.js';
import type { FetchLike } from '../../src/adapters/options.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../../src/core/index.js';
import { PROVIDER_FLAVOURS, type ProviderFlavour } from '../fixtures/provider-flavours.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const HEADER_KEY = 'azure-0f1e2d3c4b5a69788796a5b4';
const GATEWAY_TOKEN = 'gw-7c6b5a4938271605f4e3';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;

/** A server that refuses every request, quoting back the headers it was sent. */
function echoingFetch(flavour: ProviderFlavour, names: readonly string[], sent: Headers[]): FetchLike {
  return async (_input, init) => {
    const headers = new Headers(init.headers);
    sent.push(headers);
    const quoted = names.map((name) => `${name}: ${headers.get(name) ?? '(none)'}`).join('; ');
    const reply = flavour.error(401, `invalid credentials (${quoted})`);
    return new Response(JSON.stringify(reply.body), { status: reply.status ?? 401, headers: { 'content-type': 'application/json' } });
  };
}

export function adapterSecretsSuite(h: SuiteHarness): void {
  const { expect } = h;
  const providerError = async (work: () => Promise<unknown>): Promise<ProviderError> => {
    const error = (await caught(work)) as ProviderError;
    expect(h.lib.RulvarError.is(error)).toBe(true);
    expect(error.code).toBe('model.failed');
    return error;
  };
  const errorTexts = (error: ProviderError) => [error.message, String(error), JSON.stringify(error), error.stack ?? ''];

  /** Everything a run with this model leaves behind that a host might log: outcome, events, journal. */
  const runTrace = async (model: ModelAdapter): Promise<string> => {
    const journal = h.lib.memoryJournal();
    const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: `${model.id}:m` } });
    const handle = engine.run(h.lib.defineWorkflow({ name: 'leak' }, (ctx) => ctx.agent('go')), undefined);
    const events: unknown[] = [];
    for (const name of ['agent:start', 'turn:end', 'run:end'] as const) handle.on(name, (event) => events.push(event));
    const outcome = await handle.result;
    expect(outcome.status).toBe('failed');
    const failure = outcome.status === 'failed' ? `${outcome.error.message} ${String(outcome.error.cause)}` : '';
    return JSON.stringify({ outcome, failure, events, journal: await journal.load(handle.runId) });
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    h.describe(`adapter secrets: ${flavour.name}`, () => {
      h.it('a custom fetch that throws quoting the key: retryable model.failed, the key redacted', async () => {
        const fetch = async (): Promise<Response> => {
          throw new TypeError(`connect refused for request with Authorization: ${KEY}`);
        };
        const error = await providerError(() => flavour.adapter({ apiKey: KEY, fetch, maxRetries: 0 }).generate(REQUEST, live()));
        expect(error.retryable).toBe(true);
        expect(error.message).toBe(`${flavour.id} could not be reached (TypeError: connect refused for request with Authorization: [redacted])`);
      });

      h.it('a key the server echoes back appears in no error, engine failure or event', async () => {
        const server = flavour.server();
        const model = flavour.adapter({ apiKey: KEY, fetch: server.fetch, maxRetries: 0 });
        const echo = `invalid x-api-key ${KEY}; Authorization: Bearer ${KEY}`;
        server.queue(flavour.error(401, echo));
        const error = await providerError(() => model.generate(REQUEST, live()));
        for (const text of errorTexts(error)) expect(text).not.toContain(KEY);
        expect(error.message).toContain('[redacted]');

        // Where the detail is cut short, the key straddling the cut leaves no prefix behind.
        server.queue(flavour.error(401, `${'x'.repeat(290)}${KEY}`));
        const cut = await providerError(() => model.generate(REQUEST, live()));
        expect(cut.message).not.toContain(KEY.slice(0, 8));

        server.queue(flavour.error(401, echo));
        const seen = await runTrace(model);
        expect(seen).toContain('401');
        expect(seen).not.toContain(KEY);
      });

      h.it('header values the server echoes (api-key, a gateway token) appear in no error, outcome, event or journal', async () => {
        const sent: Headers[] = [];
        const names = ['api-key', 'x-gateway-auth'];
        const fetch = echoingFetch(flavour, names, sent);
        const headers = { 'api-key': HEADER_KEY, 'X-Gateway-Auth': `Token ${GATEWAY_TOKEN}` };
        const model = flavour.adapter({ apiKey: KEY, headers, fetch, maxRetries: 0 });
        const error = await providerError(() => model.generate(REQUEST, live()));
        // The echo is real: the adapter sent both values, and the server quoted them.
        expect(sent[0]?.get('api-key')).toBe(HEADER_KEY);
        expect(sent[0]?.get('x-gateway-auth')).toBe(`Token ${GATEWAY_TOKEN}`);
        expect(error.message).toBe(`${flavour.id} answered HTTP 401: invalid credentials (api-key: [redacted]; x-gateway-auth: [redacted])`);
        const seen = await runTrace(model);
        expect(seen).toContain('401');
        for (const text of [...errorTexts(error), seen]) {
          expect(text).not.toContain(HEADER_KEY);
          expect(text).not.toContain(GATEWAY_TOKEN);
        }
      });

      h.it("a native tool's result quoting the key or a header value is scrubbed before the provider, the events and the journal see it", async () => {
        const server = flavour.server();
        server.queue(flavour.toolCall('call-1', 'lookup', {}), flavour.text('done'));
        const headers = { 'api-key': HEADER_KEY };
        const model = flavour.adapter({ apiKey: KEY, headers, fetch: server.fetch, maxRetries: 0 });
        const leaky = h.lib.tool({ name: 'lookup', description: 'Echoes its environment.', parameters: { type: 'object' }, execute: () => ({ env: { API_KEY: KEY }, note: `Bearer ${KEY}`, azure: HEADER_KEY }) });
        const journal = h.lib.memoryJournal();
        const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: `${flavour.id}:m` } });
        const handle = engine.run(h.lib.defineWorkflow({ name: 'leaky' }, async (ctx) => (await ctx.agent('go', { tools: [leaky] })).text), undefined);
        const events: unknown[] = [];
        handle.on('tool:end', (event) => events.push(event));
        expect(await handle.result).toMatchObject({ status: 'completed', value: 'done' });
        expect(JSON.stringify(events)).toContain('"note":"Bearer [redacted]"');
        // The second request carries the tool's result to the provider: scrubbed there too.
        expect(server.requests).toHaveLength(2);
        const trace = JSON.stringify({ events, bodies: server.requests.map((r) => r.body), journal: await journal.load(handle.runId) });
        expect(trace).not.toContain(KEY);
        expect(trace).not.toContain(HEADER_KEY);
      });

      h.it('a header value quoted alone by a throwing fetch is redacted, its scheme word kept', async () => {
        const fetch = async (): Promise<Response> => {
          throw new TypeError(`proxy refused the token (${GATEWAY_TOKEN}) and api-key=${HEADER_KEY}`);
        };
        const headers = { 'api-key': HEADER_KEY, 'x-gateway-auth': `Token ${GATEWAY_TOKEN}` };
        const error = await providerError(() => flavour.adapter({ apiKey: KEY, headers, fetch, maxRetries: 0 }).generate(REQUEST, live()));
        expect(error.message).toBe(`${flavour.id} could not be reached (TypeError: proxy refused the token ([redacted]) and api-key=[redacted])`);
      });
    });
  }

  h.describe('a custom adapter that declares redact', () => {
    /** Answers `answers` in turn, quoting the key in each; `redact` as given. */
    const quoting = (answers: ModelResponse[], redact: unknown): ModelAdapter => {
      let turn = 0;
      const adapter = { id: 'custom', generate: async () => answers[Math.min(turn++, answers.length - 1)]! };
      return Object.assign(adapter, redact === undefined ? {} : { redact }) as ModelAdapter;
    };
    const runWith = async (model: ModelAdapter) => {
      const seen: unknown[] = [];
      const lookup = h.lib.tool({ name: 'lookup', description: 'Looks up.', parameters: { type: 'object' }, execute: (input) => (seen.push(input), 'found') });
      const journal = h.lib.memoryJournal();
      const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: 'custom:m' } });
      const handle = engine.run(h.lib.defineWorkflow({ name: 'declared' }, async (ctx) => (await ctx.agent('go', { tools: [lookup] })).text), undefined);
      const events: unknown[] = [];
      for (const name of ['tool:start', 'tool:end', 'turn:end', 'run:end'] as const) handle.on(name, (event) => events.push(event));
      const outcome = await handle.result;
      return { outcome, seen, trace: JSON.stringify({ outcome, seen, events, journal: await journal.load(handle.runId) }) };
    };
    const answers = (): ModelResponse[] => [
      { text: `calling with ${KEY}`, toolCalls: [{ id: `call-${KEY}`, name: 'lookup', input: { q: { deep: [`Bearer ${KEY}`] }, [KEY]: 1 } }], stopReason: 'tool_calls' },
      { text: `the answer for ${KEY}`, toolCalls: [], stopReason: 'end' },
    ];

    h.it('every string of its answers is scrubbed before the history, the tools, events and the journal see it', async () => {
      const { outcome, seen, trace } = await runWith(quoting(answers(), h.lib.secretRedactor([KEY])));
      expect(outcome).toMatchObject({ status: 'completed', value: 'the answer for [redacted]' });
      expect(seen).toEqual([{ q: { deep: ['Bearer [redacted]'] }, '[redacted]': 1 }]);
      expect(trace).not.toContain(KEY);
      // Without a declaration the engine keeps what the adapter said: the scrub above is the engine's.
      expect((await runWith(quoting(answers(), undefined))).trace).toContain(KEY);
    });

    h.it("a native tool's result quoting the key is scrubbed by the same redact before the model, the events and the journal see it", async () => {
      const requests: string[] = [];
      const model = quoting(answers(), h.lib.secretRedactor([KEY]));
      const generate = model.generate.bind(model);
      model.generate = async (request, signal) => (requests.push(JSON.stringify(request.messages)), generate(request, signal));
      const leaky = h.lib.tool({ name: 'lookup', description: 'Echoes its environment.', parameters: { type: 'object' }, execute: () => ({ env: { API_KEY: KEY }, note: `Bearer ${KEY}`, [KEY]: true }) });
      const journal = h.lib.memoryJournal();
      const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: 'custom:m' } });
      const handle = engine.run(h.lib.defineWorkflow({ name: 'leaky' }, async (ctx) => (await ctx.agent('go', { tools: [leaky] })).history), undefined);
      const events: unknown[] = [];
      handle.on('tool:end', (event) => events.push(event));
      const outcome = await handle.result;
      expect(outcome.status).toBe('completed');
      expect(JSON.stringify(events)).toContain('"note":"Bearer [redacted]"');
      expect(requests).toHaveLength(2);
      expect(JSON.stringify({ outcome, events, requests, journal: await journal.load(handle.runId) })).not.toContain(KEY);
    });

    h.it("a tool result quoting another adapter's key is scrubbed with that adapter's redact too, before the agent's model and the journal", async () => {
      const OTHER = 'gw-other-provider-0f9e8d7c6b5a';
      const requests: string[] = [];
      const model = quoting(answers(), h.lib.secretRedactor([KEY]));
      const generate = model.generate.bind(model);
      model.generate = async (request, signal) => (requests.push(JSON.stringify(request.messages)), generate(request, signal));
      const other = { id: 'other', redact: h.lib.secretRedactor([OTHER]), generate: async (): Promise<ModelResponse> => ({ text: 'unused', toolCalls: [], stopReason: 'end' }) };
      const leaky = h.lib.tool({ name: 'lookup', description: 'Echoes its environment.', parameters: { type: 'object' }, execute: () => ({ env: { OTHER_KEY: OTHER, API_KEY: KEY } }) });
      const journal = h.lib.memoryJournal();
      const engine = h.lib.createEngine({ adapters: [model, other], journal, defaults: { model: 'custom:m' } });
      const handle = engine.run(h.lib.defineWorkflow({ name: 'cross' }, async (ctx) => (await ctx.agent('go', { tools: [leaky] })).text), undefined);
      const events: unknown[] = [];
      handle.on('tool:end', (event) => events.push(event));
      expect(await handle.result).toMatchObject({ status: 'completed' });
      expect(JSON.stringify(events)).toContain('"env":{"OTHER_KEY":"[redacted]","API_KEY":"[redacted]"}');
      expect(requests).toHaveLength(2);
      const trace = JSON.stringify({ events, requests, journal: await journal.load(handle.runId) });
      expect(trace).not.toContain(OTHER);
      expect(trace).not.toContain(KEY);
    });

    h.it('a redact that throws on a tool result hides that string, and the run goes on', async () => {
      const redact = (text: string) => {
        if (text.includes('boom')) throw new Error('redact broke');
        return text;
      };
      const model = quoting([answers()[0]!, { text: 'done', toolCalls: [], stopReason: 'end' }], redact);
      const tool = h.lib.tool({ name: 'lookup', description: 'Looks up.', parameters: { type: 'object' }, execute: () => ({ kept: 'fine', lost: 'boom' }) });
      const journal = h.lib.memoryJournal();
      const handle = h.lib.createEngine({ adapters: [model], journal, defaults: { model: 'custom:m' } }).run(h.lib.defineWorkflow({ name: 'broken-redact' }, async (ctx) => (await ctx.agent('go', { tools: [tool] })).text), undefined);
      expect(await handle.result).toMatchObject({ status: 'completed', value: 'done' });
      const entry = (await journal.load(handle.runId)).find((e) => e.type === 'tool');
      expect(entry?.type === 'tool' && entry.result.output).toEqual({ kept: 'fine', lost: "[hidden: the adapter's redact failed]" });
    });

    h.it('redact is called with the adapter as this, on every string', async () => {
      const calls: string[] = [];
      const model = quoting(answers(), function (this: { id: string }, text: string) {
        calls.push(`${this.id}:${text}`);
        return text.split(KEY).join('***');
      });
      const { trace } = await runWith(model);
      expect(trace).not.toContain(KEY);
      expect(calls).toContain(`custom:calling with ${KEY}`);
      expect(calls).toContain(`custom:${KEY}`);
    });

    h.it("its failures are scrubbed by the same redact: an error quoting the key reaches no outcome, event or journal", async () => {
      const failing = (redact: unknown, retryable: boolean): ModelAdapter => {
        const adapter = {
          id: 'custom',
          generate: async () => {
            throw Object.assign(new Error(`gateway refused ${KEY} (Bearer ${KEY})`), { retryable });
          },
        };
        return Object.assign(adapter, redact === undefined ? {} : { redact }) as ModelAdapter;
      };
      for (const retryable of [false, true]) {
        const { outcome, trace } = await runWith(failing(h.lib.secretRedactor([KEY]), retryable));
        expect(outcome.status).toBe('failed');
        const error = outcome.status === 'failed' ? outcome.error : undefined;
        expect(error?.code).toBe('model.failed');
        expect(error?.message).toContain('gateway refused [redacted]');
        expect(String((error?.cause as Error | undefined)?.message)).toContain('gateway refused [redacted]');
        expect(trace).not.toContain(KEY);
      }
      // A redact that breaks on the failure hides the whole text rather than keep the key.
      const broken = await runWith(failing(() => { throw new Error('redactor broke'); }, false));
      expect(broken.outcome.status).toBe('failed');
      expect(broken.trace).not.toContain(KEY);
    });

    h.it('a redact that throws or returns no string fails the agent as model.failed', async () => {
      for (const redact of [() => { throw new Error('redactor broke'); }, () => 42, 'not a function']) {
        const { outcome } = await runWith(quoting(answers(), redact));
        expect(outcome.status).toBe('failed');
        expect(outcome.status === 'failed' ? outcome.error.code : undefined).toBe('model.failed');
      }
    });
  });
}
