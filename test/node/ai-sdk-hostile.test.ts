/**
 * aiSdk() against model objects that misbehave: provider errors typed with the provider's own
 * retry flag and nothing secret in the message; a model that throws synchronously, answers
 * junk, never settles, streams forever, streams unknown parts or answers too much, each
 * bounded and typed; the run's signal aborting the provider call; the host's secrets scrubbed
 * from errors, deltas and answers.
 */
import { APICallError } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdk, type AiSdkLanguageModel, type ProviderError } from '../../src/ai-sdk/index.js';
import { RulvarError } from '../../src/core/index.js';
import { caught, within } from '../core/helpers.js';
import { HELLO, assemble, collect, finish, generated, live, streamed } from './ai-sdk-helpers.js';

const KEY = 'sk-live-0123456789abcdef';
const failing = (error: unknown) => new MockLanguageModelV4({ doGenerate: async () => { throw error; }, doStream: async () => { throw error; } });
const coded = (error: unknown, code: string) => RulvarError.is(error) && error.code === code;

function apiError(statusCode: number, message: string, isRetryable?: boolean): APICallError {
  return new APICallError({
    message,
    url: `https://api.example.com/v1/chat?key=${KEY}`,
    requestBodyValues: { messages: [{ role: 'user', content: 'the prompt' }], api_key: KEY },
    statusCode,
    responseHeaders: { 'x-echo': KEY },
    responseBody: `{"error":"${KEY}"}`,
    ...(isRetryable === undefined ? {} : { isRetryable }),
  });
}

/** A model whose calls never settle and whose stream never yields; it records the signal it was given. */
function silent() {
  const signals: AbortSignal[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: (options) => {
      signals.push(options.abortSignal as AbortSignal);
      return new Promise(() => undefined);
    },
    doStream: async (options) => {
      signals.push(options.abortSignal as AbortSignal);
      return { stream: new ReadableStream({ pull: () => new Promise(() => undefined), cancel: () => void signals.push(AbortSignal.abort('cancelled')) }) };
    },
  });
  return { model, signals };
}

describe('aiSdk() provider errors', () => {
  it.each([
    [429, undefined, true],
    [503, undefined, true],
    [400, undefined, false],
    [401, undefined, false],
    [400, true, true],
  ])('HTTP %i (isRetryable %s) is model.failed with retryable %s, from generate and from stream', async (status, flag, retryable) => {
    const adapter = aiSdk(failing(apiError(status, 'Rate limit reached', flag)));
    for (const error of [await caught(() => adapter.generate(HELLO, live())), await caught(() => collect(adapter))]) {
      expect(coded(error, 'model.failed')).toBe(true);
      expect((error as ProviderError).retryable).toBe(retryable);
      expect((error as ProviderError).status).toBe(status);
      expect((error as Error).message).toBe(`mock-provider/mock-model-id failed (AI_APICallError HTTP ${status}): Rate limit reached`);
    }
  });

  it('keeps the request body, the URL, the headers and the response body out, and scrubs the host secrets from the message', async () => {
    const adapter = aiSdk(failing(apiError(401, `Incorrect API key provided: ${KEY}. Bearer ${'x'.repeat(12)}`)), { secrets: [KEY] });
    const error = (await caught(() => adapter.generate(HELLO, live()))) as ProviderError;
    expect(error.message).toBe('mock-provider/mock-model-id failed (AI_APICallError HTTP 401): Incorrect API key provided: [redacted]. Bearer [redacted]');
    expect(JSON.stringify({ ...error, message: error.message, cause: error.cause })).not.toMatch(/the prompt|0123456789|api\.example/);
    expect(error.cause).toBeUndefined();
  });

  it('types a streamed error part with its retry flag, and a thrown non-Error', async () => {
    const model = new MockLanguageModelV4({ doStream: async () => streamed([{ type: 'text-delta', id: 't', delta: 'a' }, { type: 'error', error: apiError(500, 'overloaded') }]) });
    const error = (await caught(() => collect(aiSdk(model)))) as ProviderError;
    expect([error.code, error.retryable, error.status]).toEqual(['model.failed', true, 500]);
    const odd = (await caught(() => aiSdk(failing({ error: { message: 'bad input' } })).generate(HELLO, live()))) as ProviderError;
    expect([odd.code, odd.retryable, odd.message]).toEqual(['model.failed', false, 'mock-provider/mock-model-id failed (an error): bad input']);
  });

  it('types a model whose methods throw synchronously, or whose error is a proxy every read of which throws', async () => {
    const sync = { specificationVersion: 'v4', provider: 'p', modelId: 'm', doGenerate: () => { throw new TypeError('sync'); }, doStream: () => { throw new TypeError('sync'); } } as unknown as AiSdkLanguageModel;
    const hostile = new Proxy({}, { get: () => { throw new Error('trap'); } });
    for (const adapter of [aiSdk(sync), aiSdk(failing(hostile))]) {
      expect(coded(await caught(() => adapter.generate(HELLO, live())), 'model.failed')).toBe(true);
      expect(coded(await caught(() => collect(adapter)), 'model.failed')).toBe(true);
    }
  });
});

describe('aiSdk() junk answers', () => {
  it.each([
    ['null', null],
    ['a result without content', { finishReason: { unified: 'stop' } }],
    ['a content part that is no object', generated(['text'])],
    ['a text part without text', generated([{ type: 'text', text: 3 }])],
    ['a tool call without a name', generated([{ type: 'tool-call', toolCallId: 'c', input: '{}' }])],
    ['a getter that throws', generated([Object.defineProperty({ type: 'text' }, 'text', { get: () => { throw new Error('trap'); } })])],
  ])('generate answering %s is model.protocol', async (_, answer) => {
    const error = await caught(() => aiSdk(new MockLanguageModelV4({ doGenerate: async () => answer as never })).generate(HELLO, live()));
    expect(coded(error, 'model.protocol')).toBe(true);
    expect((error as ProviderError).retryable).toBe(false);
  });

  it.each([
    ['no stream', {}],
    ['a stream that is no ReadableStream', { stream: [{ type: 'finish' }] }],
    ['a part that is no object', streamed([42])],
    ['a text delta without text', streamed([{ type: 'text-delta', id: 't' }])],
    ['two starts of one tool call', streamed([{ type: 'tool-input-start', id: 'c', toolName: 'a' }, { type: 'tool-input-start', id: 'c', toolName: 'a' }])],
    ['input deltas the final call contradicts', streamed([{ type: 'tool-input-start', id: 'c', toolName: 'a' }, { type: 'tool-input-delta', id: 'c', delta: '{"x":1' }, { type: 'tool-call', toolCallId: 'c', toolName: 'a', input: '{"y":2}' }])],
  ])('stream answering %s is model.protocol', async (_, answer) => {
    const adapter = aiSdk(new MockLanguageModelV4({ doStream: async () => answer as never }));
    expect(coded(await caught(() => collect(adapter)), 'model.protocol')).toBe(true);
  });

  it('a stream that ends without a finish, or finishes with error or interrupted, is a retryable model.failed', async () => {
    for (const parts of [[{ type: 'text-delta', id: 't', delta: 'half' }], [finish('error')], [finish('interrupted')]]) {
      const error = (await caught(() => collect(aiSdk(new MockLanguageModelV4({ doStream: async () => streamed(parts) }))))) as ProviderError;
      expect([error.code, error.retryable]).toEqual(['model.failed', true]);
    }
    const error = (await caught(() => aiSdk(new MockLanguageModelV4({ doGenerate: async () => generated([], 'interrupted') })).generate(HELLO, live()))) as ProviderError;
    expect([error.code, error.retryable]).toEqual(['model.failed', true]);
  });
});

describe('aiSdk() bounds', () => {
  it('an answer past maxAnswerChars is model.protocol, in generate and in a stream, and the stream is cancelled', async () => {
    let cancelled = false;
    const text = 'x'.repeat(600);
    const endless = { stream: new ReadableStream({ pull: (controller) => controller.enqueue({ type: 'text-delta', id: 't', delta: text }), cancel: () => void (cancelled = true) }) };
    const model = new MockLanguageModelV4({ doGenerate: async () => generated([{ type: 'text', text }, { type: 'text', text }]), doStream: async () => endless });
    const adapter = aiSdk(model, { maxAnswerChars: 1000 });
    expect((await caught(() => adapter.generate(HELLO, live())) as Error).message).toMatch(/more than maxAnswerChars \(1000\)/);
    expect(coded(await caught(() => collect(adapter)), 'model.protocol')).toBe(true);
    expect(cancelled).toBe(true);
    expect((await aiSdk(model, { maxAnswerChars: 1200 }).generate(HELLO, live())).text).toBe(text + text);
  });

  it('a stream of parts that carry nothing ends at maxStreamParts, however fast they come', async () => {
    let served = 0;
    const pings = { stream: new ReadableStream({ pull: (controller) => void (served += 1, controller.enqueue(served % 2 === 0 ? { type: 'ping' } : { type: 'a-part-of-v9', data: served })) }) };
    const error = await caught(() => collect(aiSdk(new MockLanguageModelV4({ doStream: async () => pings }), { maxStreamParts: 5000 })));
    expect((error as Error).message).toMatch(/more than maxStreamParts \(5000\)/);
    expect(served).toBeLessThan(5010);
  });

  it('a call that never settles and a stream that never yields end at timeoutMs, with the provider signal aborted', async () => {
    const { model, signals } = silent();
    const adapter = aiSdk(model, { timeoutMs: 400 });
    for (const run of [() => adapter.generate(HELLO, live()), () => collect(adapter)]) {
      const started = Date.now();
      const error = (await caught(run)) as ProviderError;
      const took = Date.now() - started;
      expect([error.code, error.message]).toEqual(['model.failed', 'mock-provider/mock-model-id did not answer within 400 ms (timeoutMs)']);
      expect(took).toBeGreaterThanOrEqual(390);
      expect(took).toBeLessThan(within(400));
    }
    expect(signals.slice(0, 2).every((signal) => signal.aborted)).toBe(true);
    expect(signals).toHaveLength(3); // the stream was cancelled too
  });

  it("the run's abort ends a pending call and a silent stream at once with the run's reason, aborting the provider's signal", async () => {
    const { model, signals } = silent();
    const adapter = aiSdk(model);
    for (const run of [(signal: AbortSignal) => adapter.generate(HELLO, signal), (signal: AbortSignal) => collect(adapter, HELLO, signal)]) {
      const controller = new AbortController();
      const reason = new RulvarError('run.aborted', 'stopped');
      setTimeout(() => controller.abort(reason), 50);
      const started = Date.now();
      expect(await caught(() => run(controller.signal))).toBe(reason);
      expect(Date.now() - started).toBeLessThan(within(50));
    }
    expect(signals[0]?.aborted && signals[1]?.aborted).toBe(true);
    const before = model.doGenerateCalls.length;
    expect(await caught(() => adapter.generate(HELLO, AbortSignal.abort('early')))).toBe('early');
    expect(model.doGenerateCalls.length).toBe(before);
  });
});

describe('aiSdk() secrets', () => {
  it('scrubs the host secrets from answers (through redact) and from streamed deltas', async () => {
    const echo = `the key is ${KEY}`;
    const model = new MockLanguageModelV4({
      doGenerate: async () => generated([{ type: 'text', text: echo }, { type: 'tool-call', toolCallId: 'c', toolName: 'save', input: JSON.stringify({ [KEY]: KEY }) }]),
      doStream: async () => streamed([{ type: 'text-delta', id: 't', delta: echo }, { type: 'tool-call', toolCallId: 'c', toolName: 'save', input: JSON.stringify({ v: KEY }) }, finish()]),
    });
    const adapter = aiSdk(model, { secrets: [KEY] });
    const answer = await adapter.generate(HELLO, live());
    expect(JSON.stringify(answer)).not.toContain('0123456789');
    expect(answer.text).toBe('the key is [redacted]');
    expect(adapter.redact?.(`x ${KEY} y`)).toBe('x [redacted] y');
    expect(JSON.stringify(await collect(adapter))).not.toContain('0123456789');
    expect(aiSdk(model).redact).toBeUndefined();
  });

  it('scrubs a key split across deltas of text and of a tool input, as one continuous answer', async () => {
    const [head, tail] = [KEY.slice(0, 11), KEY.slice(11)];
    const model = new MockLanguageModelV4({
      doStream: async () =>
        streamed([
          { type: 'text-delta', id: 't', delta: `the key is ${head}` },
          { type: 'text-delta', id: 't', delta: `${tail}, done` },
          { type: 'tool-input-start', id: 'c', toolName: 'save' },
          { type: 'tool-input-delta', id: 'c', delta: `{"v":"${head}` },
          { type: 'tool-input-delta', id: 'c', delta: `${tail}"}` },
          { type: 'tool-call', toolCallId: 'c', toolName: 'save', input: `{"v":"${KEY}"}` },
          finish('tool-calls'),
        ]),
    });
    const deltas = await collect(aiSdk(model, { secrets: [KEY] }));
    const joined = JSON.stringify(deltas);
    for (const piece of [head.slice(3), tail.slice(0, 8)]) expect(joined).not.toContain(piece);
    const answer = assemble(deltas);
    expect(answer.text).toBe('the key is [redacted], done');
    expect(answer.toolCalls[0]?.input).toEqual({ v: '[redacted]' });
  });
});
