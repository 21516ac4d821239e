/**
 * Secrets never enter an answer (issue 23, item 1): a 200 answer that quotes the request's
 * credentials (anthropic's x-api-key, openaiCompatible's Authorization, an `api-key` or any
 * other `headers` value) comes out of generate() scrubbed, whatever string of the answer holds
 * the echo (text, a refusal, a tool call's id, name, input at any depth, an input's key) and
 * however it was encoded, and so does not reach the run's value, its events or its journal.
 */
import type { ModelAdapter, ModelRequest } from '../../src/core/index.js';
import { ANSWER_ECHOES, ANSWER_PLACES, echoingAnswers, type AnswerEcho, type AnswerPlace } from '../fixtures/provider-echoes.js';
import { PROVIDER_FLAVOURS, type ProviderFlavour } from '../fixtures/provider-flavours.js';
import type { SuiteHarness } from './harness.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const HEADER_KEY = 'azure-0f1e2d3c4b5a69788796a5b4';
const GATEWAY_TOKEN = 'gw-7c6b5a4938271605f4e3';
const HEADERS = { 'api-key': HEADER_KEY, 'X-Gateway-Auth': `Token ${GATEWAY_TOKEN}` };
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const live = () => new AbortController().signal;

const base64 = (text: string): string => btoa(text);

/** The request headers that carry a secret, per flavour, and the secret inside each. */
function carriers(flavour: ProviderFlavour): { header: string; secret: string }[] {
  const auth = flavour.name === 'anthropic' ? 'x-api-key' : 'authorization';
  return [
    { header: auth, secret: KEY },
    { header: 'api-key', secret: HEADER_KEY },
    { header: 'x-gateway-auth', secret: GATEWAY_TOKEN },
  ];
}

export function adapterEchoesSuite(h: SuiteHarness): void {
  const { expect } = h;

  /** Fails if 16 characters of `secret` in a row survive in any letter case, or a base64 run of it does. */
  const expectClean = (text: string, secret: string) => {
    const lower = text.toLowerCase();
    for (let i = 0; i + 16 <= secret.length; i += 1) expect(lower).not.toContain(secret.slice(i, i + 16).toLowerCase());
    for (const encoded of [base64(secret), base64(`x${secret};`).slice(4), base64(`xy${secret};`).slice(4), base64(`user:${secret}`).slice(8)]) {
      expect(text).not.toContain(encoded.slice(0, 16));
    }
    expect(text).toContain('[redacted]');
  };

  const adapterFor = (flavour: ProviderFlavour, header: string, place: AnswerPlace, how: AnswerEcho, sent: string[]): ModelAdapter => {
    const fetch = echoingAnswers(header, (value) => ANSWER_PLACES[place](flavour, ANSWER_ECHOES[how](value)), sent);
    return flavour.adapter({ apiKey: KEY, headers: HEADERS, fetch, maxRetries: 0 });
  };

  for (const flavour of PROVIDER_FLAVOURS) {
    h.describe(`adapter answers are scrubbed: ${flavour.name}`, () => {
      for (const place of Object.keys(ANSWER_PLACES) as AnswerPlace[]) {
        if (ANSWER_PLACES[place](flavour, 'x') === undefined) continue;
        h.it(`an echo in ${place}, of each secret header, in each encoding`, async () => {
          for (const { header, secret } of carriers(flavour)) {
            for (const how of Object.keys(ANSWER_ECHOES) as AnswerEcho[]) {
              const sent: string[] = [];
              const answer = await adapterFor(flavour, header, place, how, sent).generate(REQUEST, live());
              // The echo is real: the header carried the secret, and it came back in the answer.
              expect(sent[0]).toContain(secret);
              expectClean(JSON.stringify(answer), secret);
            }
          }
        });
      }

      h.it('an echoed key reaches neither the run value, nor an event, nor the journal', async () => {
        const fetch = echoingAnswers(carriers(flavour)[0]!.header, (value) => flavour.text(`the proxy saw ${value}`));
        const model = flavour.adapter({ apiKey: KEY, headers: HEADERS, fetch });
        const journal = h.lib.memoryJournal();
        const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: `${model.id}:m` } });
        const handle = engine.run(h.lib.defineWorkflow({ name: 'echo' }, async (ctx) => (await ctx.agent('go')).text), undefined);
        const events: unknown[] = [];
        for (const name of ['turn:end', 'run:end'] as const) handle.on(name, (event) => events.push(event));
        const outcome = await handle.result;
        expect(outcome.status).toBe('completed');
        expect(outcome.status === 'completed' ? outcome.value : undefined).toMatch(/^the proxy saw /);
        expectClean(JSON.stringify({ outcome, events, journal: await journal.load(handle.runId) }), KEY);
      });
    });
  }

  const openai = PROVIDER_FLAVOURS.find((flavour) => flavour.name === 'openai')!;
  h.describe('adapter answers are scrubbed: openai tool-call arguments', () => {
    h.it('arguments that spell a header value in \\u escapes are scrubbed once decoded', async () => {
      const escaped = (value: string) => [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      const fetch = echoingAnswers('api-key', (value) => rawArguments(`{"q":"${escaped(value)}"}`));
      const answer = await openai.adapter({ apiKey: KEY, headers: HEADERS, fetch }).generate(REQUEST, live());
      expect(answer.toolCalls[0]?.input).toEqual({ q: '[redacted]' });
    });
  });
}

/** An OpenAI tool call whose arguments string is sent exactly as given. */
function rawArguments(text: string) {
  const body = {
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: text } }] }, finish_reason: 'tool_calls' }],
  };
  return { raw: JSON.stringify(body) };
}
