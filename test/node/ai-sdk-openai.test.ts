/**
 * aiSdk() over a real provider package, @ai-sdk/openai's Chat Completions model, pointed by
 * baseURL at a local fake of OpenAI's wire on a loopback socket: answers and streams mapped,
 * the provider's errors typed with its own retry flag and the key scrubbed, and an agent run
 * through the engine end to end (a tool call, an approval, a resume).
 */
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { aiSdk, type ProviderError } from '../../src/ai-sdk/index.js';
import { createEngine, defineWorkflow, memoryJournal, tool, type ModelRequest } from '../../src/core/index.js';
import { caught } from '../core/helpers.js';
import { chatCompletion, createOpenAIServer, openaiError } from '../fixtures/provider-openai.js';
import { chatStream } from '../fixtures/provider-openai-stream.js';
import type { ProviderServer } from '../fixtures/provider-server.js';
import { assemble, collect, live } from './ai-sdk-helpers.js';

const KEY = 'sk-fake-openai-0123456789';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The fake on 127.0.0.1 and an OpenAI chat model of the provider package pointed at it. */
async function start(respond?: Parameters<typeof createOpenAIServer>[0]) {
  const server = createOpenAIServer(respond);
  const http = await new Promise<ServerType>((resolve) => {
    const listening: ServerType = serve({ hostname: '127.0.0.1', port: 0, fetch: server.app.fetch }, () => resolve(listening));
  });
  closers.push(async () => {
    if ('closeAllConnections' in http) http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const openai = createOpenAI({ apiKey: KEY, baseURL: `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1` });
  return { server, model: openai.chat('gpt-test') };
}

const bodyOf = (server: ProviderServer, n: number) => server.requests[n]?.body as { messages: unknown[]; tools?: unknown[]; stream?: boolean };

const REQUEST: ModelRequest = {
  model: 'gpt-test',
  system: 'be brief',
  messages: [{ role: 'user', text: 'save a note' }],
  tools: [{ name: 'save_note', description: 'Saves a note', parameters: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } }],
};
const TOOL_TURN = { text: 'Saving it.', toolCalls: [{ id: 'call_1', name: 'save_note', arguments: '{"title":"groceries"}' }], usage: { prompt_tokens: 21, completion_tokens: 9 } };
const ANSWER = { text: 'Saving it.', toolCalls: [{ id: 'call_1', name: 'save_note', input: { title: 'groceries' } }], stopReason: 'tool_calls', usage: { inputTokens: 21, outputTokens: 9 } };

describe('aiSdk(openai.chat()) against a fake of the Chat Completions wire', () => {
  it('generate sends the system text, the message and the tool as OpenAI functions, and maps the answer', async () => {
    const { server, model } = await start();
    server.queue(chatCompletion(TOOL_TURN));
    expect(await aiSdk(model).generate(REQUEST, live())).toEqual(ANSWER);
    const body = bodyOf(server, 0);
    expect(body.messages).toEqual([{ role: 'system', content: 'be brief' }, { role: 'user', content: 'save a note' }]);
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'save_note', description: 'Saves a note', parameters: REQUEST.tools[0]?.parameters } }]);
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('stream reads the server-sent events as text and tool-call deltas that assemble to the same answer', async () => {
    const { server, model } = await start();
    server.queue(chatStream(TOOL_TURN));
    const deltas = await collect(aiSdk(model), REQUEST);
    expect(bodyOf(server, 0).stream).toBe(true);
    expect(deltas.filter((delta) => delta.type === 'text').length).toBeGreaterThan(1);
    expect(deltas.filter((delta) => delta.type === 'tool_call' && delta.inputDelta !== undefined).length).toBeGreaterThan(1);
    expect(deltas.at(-1)).toEqual({ type: 'end', stopReason: 'tool_calls' });
    expect(assemble(deltas)).toEqual(ANSWER);
  });

  it.each([
    [429, true],
    [500, true],
    [400, false],
  ])('HTTP %i is model.failed with retryable %s, as the provider package flags it', async (status, retryable) => {
    const { server, model } = await start();
    server.queue(openaiError(status, 'try later'), openaiError(status, 'try later'));
    const adapter = aiSdk(model);
    for (const error of [await caught(() => adapter.generate(REQUEST, live())), await caught(() => collect(adapter, REQUEST))]) {
      expect([(error as ProviderError).code, (error as ProviderError).retryable, (error as ProviderError).status]).toEqual(['model.failed', retryable, status]);
    }
  });

  it('a 401 that echoes the key is reported without it', async () => {
    const { server, model } = await start();
    server.queue(openaiError(401, `Incorrect API key provided: ${KEY}.`));
    const error = (await caught(() => aiSdk(model, { secrets: [KEY] }).generate(REQUEST, live()))) as ProviderError;
    expect(error.message).toBe('openai.chat/gpt-test failed (AI_APICallError HTTP 401): Incorrect API key provided: [redacted].');
  });
});

describe('an agent on aiSdk(openai.chat()) through the engine', () => {
  it('calls a tool that waits for approval, suspends, and once allowed resumes to the final answer', async () => {
    // The engine streams when the adapter can (aiSdk can): answered as the request asks.
    const reply = (body: unknown, turn: Parameters<typeof chatCompletion>[0]) => ((body as { stream?: unknown }).stream === true ? chatStream(turn) : chatCompletion(turn));
    const { server, model } = await start((body, n) => reply(body, n === 0 ? TOOL_TURN : { text: 'Saved the groceries note.' }));
    const saved: unknown[] = [];
    const saveNote = tool({ name: 'save_note', description: 'Saves a note', parameters: REQUEST.tools[0]!.parameters, needsApproval: true, execute: async (input) => (saved.push(input), 'saved') });
    const options = { adapters: [aiSdk(model, { secrets: [KEY] })], journal: memoryJournal(), defaults: { model: 'ai-sdk:gpt-test' } };
    const remember = defineWorkflow({ name: 'remember' }, async (ctx) => (await ctx.agent('save a note', { tools: [saveNote] })).text);

    const first = await createEngine(options).run(remember, undefined).result;
    if (first.status !== 'suspended') throw new Error(`expected a suspended run, got ${first.status}`);
    expect(first.approvals.map((ask) => [ask.toolName, ask.input])).toEqual([['save_note', { title: 'groceries' }]]);
    expect(saved).toEqual([]);

    const engine = createEngine(options);
    const ask = first.approvals[0]!;
    expect(await engine.resolveExternal(ask.runId, ask.key, 'allow')).toBe(true);
    const done = await engine.resume(ask.runId, remember).result;
    expect(done.status === 'completed' ? done.value : done.status).toBe('Saved the groceries note.');
    expect(saved).toEqual([{ title: 'groceries' }]);
    // The resumed turn sent the call and its result back the way OpenAI reads them.
    expect(bodyOf(server, 1).messages).toEqual([
      { role: 'user', content: 'save a note' },
      { role: 'assistant', content: 'Saving it.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'save_note', arguments: '{"title":"groceries"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'saved' },
    ]);
    expect(server.requests).toHaveLength(2);
  });
});
