/**
 * The built-in adapters' streams over the providers' real SSE formats (test/fixtures/
 * provider-sse.ts): the same answer whatever byte boundaries the stream is split at (LF and
 * CRLF lines); a stream cut midway, or silent past idleTimeoutMs, a retryable error with its
 * body let go; an event past maxEventBytes and a stream past maxResponseBytes refused with
 * reading stopped; a key the provider echoes, split across events anywhere, never in a delta;
 * an error event typed; failures before the first byte exactly as generate's.
 */
import type { ProviderError } from '../../src/adapters/errors.js';
import type { FetchLike, ProviderOptions } from '../../src/adapters/options.js';
import { anthropic } from '../../src/anthropic/index.js';
import type { ModelAdapter, ModelDelta, ModelRequest } from '../../src/core/index.js';
import { DeltaAssembler } from '../../src/core/model/assemble.js';
import { SseParser } from '../../src/adapters/sse.js';
import { openaiCompatible } from '../../src/openai/index.js';
import { SAMPLE_TURN, anthropicSse, assembled, chatSse, floodFetch, sseFetch, type StreamedTurn } from '../fixtures/provider-sse.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const KEY = 'sk-test-abcdef0123456789-SECRET';
const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };

interface Flavour {
  readonly name: string;
  readonly make: (options: ProviderOptions & { fetch: FetchLike }) => ModelAdapter;
  readonly sse: (turn: StreamedTurn, eol?: string) => string;
  /** An error event mid-stream, in this provider's shape. */
  readonly errorEvent: string;
  /** One small text delta event, for floods. */
  readonly textEvent: (text: string) => string;
}

const FLAVOURS: readonly Flavour[] = [
  {
    name: 'anthropic',
    make: (options) => anthropic({ ...options, baseURL: 'https://anthropic.test' }),
    sse: anthropicSse,
    errorEvent: `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    textEvent: (text) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`,
  },
  {
    name: 'openai',
    make: (options) => openaiCompatible({ ...options, baseURL: 'https://openai.test/v1' }),
    sse: chatSse,
    errorEvent: `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`,
    textEvent: (text) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`,
  },
];

/** Every delta of one stream, and what they assemble to. */
async function collect(adapter: ModelAdapter, signal = new AbortController().signal): Promise<{ deltas: ModelDelta[]; response: unknown }> {
  const assembler = new DeltaAssembler();
  const deltas: ModelDelta[] = [];
  for await (const delta of adapter.stream!(REQUEST, signal)) {
    deltas.push(delta);
    assembler.add(assembler.check(delta));
  }
  return { deltas, response: assembler.response() };
}

export function adapterStreamSuite(h: SuiteHarness): void {
  const { expect } = h;
  for (const flavour of FLAVOURS) {
    h.describe(`adapter streams: ${flavour.name}`, () => {
      const expected = assembled(SAMPLE_TURN);

      h.it('sends stream: true (with include_usage on Chat Completions) and accepts text/event-stream', async () => {
        const { fetch, log } = sseFetch(flavour.sse(SAMPLE_TURN));
        expect((await collect(flavour.make({ apiKey: KEY, fetch }))).response).toEqual(expected);
        expect(log.bodies[0]).toMatchObject(flavour.name === 'openai' ? { stream: true, stream_options: { include_usage: true } } : { stream: true });
        expect(log.headers[0]).toMatchObject({ accept: 'text/event-stream' });
      });

      h.it('the SSE parser gives the same events, names included, at every split of a CRLF stream', () => {
        const stream = new TextEncoder().encode(flavour.sse(SAMPLE_TURN, '\r\n'));
        const whole = new SseParser(1 << 20).push(stream);
        expect(whole.length).toBeGreaterThan(10);
        for (let cut = 1; cut < stream.length; cut += 1) {
          const parser = new SseParser(1 << 20);
          expect([...parser.push(stream.subarray(0, cut)), ...parser.push(stream.subarray(cut))]).toEqual(whole);
        }
      });

      h.it('the same answer whatever two chunks a CRLF stream is split into, at every byte', async () => {
        const turn = { text: ['Hi, ', 'é 😀'], toolCalls: [{ id: 'call_9', name: 'lookup', input: ['{"q":', '"x"}'] }], usage: { input: 2, output: 3 } };
        const stream = new TextEncoder().encode(flavour.sse(turn, '\r\n'));
        // One adapter, one request per split: request n is cut at byte n + 1.
        const { fetch } = sseFetch(stream, Array.from({ length: stream.length - 1 }, (_, i) => ({ cuts: [i + 1] })));
        const model = flavour.make({ apiKey: KEY, fetch });
        for (let cut = 1; cut < stream.length; cut += 1) expect((await collect(model)).response).toEqual(assembled(turn));
      }, 60_000);

      for (const eol of ['\n', '\r\n', '\r']) {
        h.it(`the same answer sent one byte at a time, every byte boundary a chunk boundary (${JSON.stringify(eol)} lines)`, async () => {
          const stream = new TextEncoder().encode(flavour.sse(SAMPLE_TURN, eol));
          const { fetch } = sseFetch(stream, [{ cuts: Array.from({ length: stream.length }, (_, i) => i) }]);
          const { deltas, response } = await collect(flavour.make({ apiKey: KEY, fetch }));
          expect(response).toEqual(expected);
          // Streamed as it came: more than one text delta.
          expect(deltas.filter((d) => d.type === 'text').length).toBeGreaterThan(1);
        });
      }

      h.it('a stream cut midway is a retryable model.failed, its body let go', async () => {
        const stream = flavour.sse(SAMPLE_TURN);
        for (const upTo of [10, Math.floor(stream.length / 2), stream.length - 3]) {
          const { fetch, log } = sseFetch(stream, [{ upTo }]);
          const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch })))) as ProviderError;
          expect(error).toMatchObject({ code: 'model.failed', retryable: true });
          expect(log.bodies).toHaveLength(1);
        }
      });

      h.it('a stream silent past idleTimeoutMs (300) fails retryably in about 300 ms, its body cancelled', async () => {
        const stream = flavour.sse(SAMPLE_TURN);
        const { fetch, log } = sseFetch(stream, [{ upTo: Math.floor(stream.length / 2), stall: true }]);
        const started = Date.now();
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch, idleTimeoutMs: 300 })))) as ProviderError;
        const elapsed = Date.now() - started;
        expect(error).toMatchObject({ code: 'model.failed', retryable: true });
        expect(error.message).toContain('sent nothing for 300 ms (idleTimeoutMs)');
        expect(elapsed).toBeGreaterThanOrEqual(295);
        expect(elapsed).toBeLessThan(300 + 250);
        expect(log.cancelled).toBe(1);
      });

      h.it('an event past maxEventBytes is model.protocol, read no further than the bound', async () => {
        const big = flavour.sse({ text: ['x'.repeat(3000)], toolCalls: [], usage: { input: 1, output: 1 } });
        const { fetch, log } = sseFetch(big, [{ cuts: Array.from({ length: 100 }, (_, i) => i * 100) }]);
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch, maxEventBytes: 1024 })))) as ProviderError;
        expect(error).toMatchObject({ code: 'model.protocol', retryable: false, message: `${flavour.name} streamed an event of more than maxEventBytes (1024)` });
        expect(log.pulled).toBeLessThan(2048);
        expect(log.cancelled).toBe(1);
      });

      h.it('a stream past maxResponseBytes is model.protocol, reading stopped there', async () => {
        const { fetch, log } = floodFetch(flavour.sse({ text: [], toolCalls: [], usage: { input: 1, output: 1 } }).split('\n\n')[0] + '\n\n', flavour.textEvent('tok'), 1_000_000);
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch, maxResponseBytes: 64 * 1024 })))) as ProviderError;
        expect(error).toMatchObject({ code: 'model.protocol', retryable: false, message: `${flavour.name} streamed more than maxResponseBytes (65536)` });
        expect(log.pulled).toBeLessThan(64 * 1024 + 1024);
        expect(log.cancelled).toBe(1);
      });

      h.it('a stream whose content-length is past maxResponseBytes is refused before a byte of it is read', async () => {
        const { fetch, log } = floodFetch(flavour.textEvent('tok'), flavour.textEvent('tok'), 1_000_000, { 'content-length': String(600 * 1024 * 1024) });
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch, maxResponseBytes: 64 * 1024, maxRetries: 0 })))) as ProviderError;
        expect(error).toMatchObject({ code: 'model.protocol', retryable: false, message: `${flavour.name} answered a stream of 629145600 bytes, more than maxResponseBytes (65536)` });
        expect(log.pulled).toBe(0);
        expect(log.cancelled).toBe(1);
        expect(log.bodies).toHaveLength(1);
      });

      h.it('a key the provider echoes, split across two deltas at any point, is in no delta and no answer', async () => {
        const line = `your key is ${KEY} as you sent it`;
        for (let cut = 1; cut < line.length; cut += 1) {
          const { fetch } = sseFetch(flavour.sse({ text: [line.slice(0, cut), line.slice(cut)], toolCalls: [], usage: { input: 1, output: 1 } }));
          const { deltas, response } = await collect(flavour.make({ apiKey: KEY, fetch }));
          expect((response as { text: string }).text).toBe('your key is [redacted] as you sent it');
          for (const d of deltas) if (d.type === 'text') expect(d.text).not.toMatch(/abcdef|0123|SECRET|sk-test/);
        }
      });

      h.it('a key echoed in a tool call\'s streamed input is scrubbed from the deltas and the input', async () => {
        const json = JSON.stringify({ token: KEY });
        const turn = { text: [], toolCalls: [{ id: 'call_1', name: 'lookup', input: [json.slice(0, 15), json.slice(15, 22), json.slice(22)] }], usage: { input: 1, output: 1 } };
        const { fetch } = sseFetch(flavour.sse(turn));
        const { deltas, response } = await collect(flavour.make({ apiKey: KEY, fetch }));
        expect(response).toMatchObject({ toolCalls: [{ id: 'call_1', name: 'lookup', input: { token: '[redacted]' } }] });
        expect(JSON.stringify(deltas)).not.toMatch(/abcdef|0123|SECRET/);
      });

      h.it("a key echoed in a streamed tool call's id and name is scrubbed from the deltas and the answer", async () => {
        const turn = { text: [], toolCalls: [{ id: `call_${KEY}`, name: `lookup_${KEY}`, input: ['{}'] }], usage: { input: 1, output: 1 } };
        const { fetch } = sseFetch(flavour.sse(turn));
        const { deltas, response } = await collect(flavour.make({ apiKey: KEY, fetch }));
        expect(response).toMatchObject({ toolCalls: [{ id: 'call_[redacted]', name: 'lookup_[redacted]' }] });
        expect(JSON.stringify(deltas)).not.toMatch(/abcdef|0123|SECRET/);
      });

      if (flavour.name === 'openai') {
        h.it('a key echoed in a streamed refusal, split across two chunks, is in no delta and the answer is refused', async () => {
          const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
          const line = `I will not repeat ${KEY} here`;
          const cut = line.indexOf(KEY) + 9;
          const { fetch } = sseFetch(chunk({ refusal: line.slice(0, cut) }, null) + chunk({ refusal: line.slice(cut) }, 'stop') + 'data: [DONE]\n\n');
          const { deltas, response } = await collect(flavour.make({ apiKey: KEY, fetch }));
          expect(response).toMatchObject({ text: 'I will not repeat [redacted] here', stopReason: 'refused' });
          expect(JSON.stringify(deltas)).not.toMatch(/abcdef|0123|SECRET/);
        });
      }

      h.it('an error event mid-stream is a typed model error, its message from the provider', async () => {
        const stream = flavour.sse(SAMPLE_TURN);
        const half = stream.slice(0, stream.indexOf('\n\n', stream.length / 2) + 2);
        const { fetch } = sseFetch(half + flavour.errorEvent);
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch })))) as ProviderError;
        expect(error).toMatchObject({ code: 'model.failed' });
        expect(error.message).toContain(flavour.name === 'anthropic' ? 'Overloaded' : 'The server had an error');
        // Anthropic's overload is worth a retry; a compatible server's error chunk says nothing of the kind.
        expect(error.retryable).toBe(flavour.name === 'anthropic');
      });

      h.it('before the first byte, failures are generate\'s: a 429 waited out then streamed, a 401 final', async () => {
        const ok = sseFetch(flavour.sse(SAMPLE_TURN));
        let calls = 0;
        const fetch: FetchLike = async (url, init) => {
          calls += 1;
          if (calls === 1) return new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { 'retry-after-ms': '0', 'content-type': 'application/json' } });
          return ok.fetch(url, init);
        };
        expect((await collect(flavour.make({ apiKey: KEY, fetch }))).response).toEqual(expected);
        expect(calls).toBe(2);

        let refusals = 0;
        const refusing: FetchLike = async () => (refusals += 1, new Response(`{"error":{"message":"bad key ${KEY}"}}`, { status: 401 }));
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch: refusing })))) as ProviderError;
        expect(error).toMatchObject({ code: 'model.failed', retryable: false, status: 401 });
        expect(error.message).not.toContain(KEY);
        expect(refusals).toBe(1);
      });

      h.it('through the engine: a stream cut midway journals nothing, the retry\'s deltas join to the journaled text', async () => {
        const turn = { text: ['The answer ', 'is ', 'forty-two', '.'], toolCalls: [], usage: { input: 3, output: 4 } };
        const stream = flavour.sse(turn);
        const { fetch, log } = sseFetch(stream, [{ upTo: stream.indexOf('forty') + 20 }, {}]);
        const journal = h.lib.memoryJournal();
        const model = flavour.make({ apiKey: KEY, fetch });
        const engine = h.lib.createEngine({ adapters: [model], journal, defaults: { model: `${model.id}:m`, retry: { baseDelayMs: 1 } } });
        const handle = engine.run(h.lib.defineWorkflow({ name: 'streamed' }, (ctx) => ctx.agent('go')), null);
        const seen: { attempt: number; delta: ModelDelta }[] = [];
        handle.on('turn:delta', ({ attempt, delta }) => seen.push({ attempt, delta }));
        expect(await handle.result).toMatchObject({ status: 'completed', value: { text: 'The answer is forty-two.' } });
        expect(log.bodies).toHaveLength(2);
        const turns = (await journal.load(handle.runId)).flatMap((e) => (e.type === 'turn' ? [e.response] : []));
        expect(turns).toEqual([{ text: 'The answer is forty-two.', toolCalls: [], stopReason: 'end', usage: { inputTokens: 3, outputTokens: 4 } }]);
        const textOf = (attempt: number) => seen.flatMap((s) => (s.attempt === attempt && s.delta.type === 'text' ? [s.delta.text] : [])).join('');
        expect(textOf(1)).toBe(turns[0]?.text);
        expect('The answer is forty-two.'.startsWith(textOf(0))).toBe(true);
      });

      h.it('the run\'s signal ends a stream midway, the body let go', async () => {
        const stream = flavour.sse(SAMPLE_TURN);
        const { fetch, log } = sseFetch(stream, [{ upTo: Math.floor(stream.length / 2), stall: true }]);
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error('stopped by the host')), 50);
        const error = (await caught(() => collect(flavour.make({ apiKey: KEY, fetch }), controller.signal))) as Error;
        expect(error.message).toBe('stopped by the host');
        expect(log.cancelled).toBe(1);
      });
    });
  }
}
