/**
 * The fake providers' streams (test/fixtures/provider-sse.ts) are what the real providers
 * send: the official SDKs (`@anthropic-ai/sdk`, `openai`), pointed at a loopback server that
 * sends the fakes' bytes, parse them into the same text, tool calls and usage as the adapters
 * assemble from the same bytes. If a fake drifted from the real format, an SDK would refuse
 * it or read something else, and the adapter suites would be testing a fiction.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropic } from '../../src/anthropic/index.js';
import { DeltaAssembler } from '../../src/core/model/assemble.js';
import type { ModelAdapter } from '../../src/core/index.js';
import { openaiCompatible } from '../../src/openai/index.js';
import { SAMPLE_TURN, anthropicSse, chatSse } from '../fixtures/provider-sse.js';

const KEY = 'sk-test-sdk-0123456789';
let server: Server;
let origin: string;
const seen: unknown[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push(JSON.parse(body) as unknown);
      const stream = request.url?.endsWith('/v1/messages') === true ? anthropicSse(SAMPLE_TURN) : chatSse(SAMPLE_TURN);
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // In small writes, as a provider flushes them.
      const bytes = Buffer.from(stream, 'utf8');
      for (let at = 0; at < bytes.length; at += 97) response.write(bytes.subarray(at, at + 97));
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function adapterAnswer(adapter: ModelAdapter) {
  const assembler = new DeltaAssembler();
  for await (const delta of adapter.stream!({ model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] }, new AbortController().signal)) assembler.add(assembler.check(delta));
  return assembler.response() as { text: string; toolCalls: { id: string; name: string; input: unknown }[]; usage: { inputTokens: number; outputTokens: number } };
}

describe('the fake providers stream what the official SDKs parse', () => {
  it('@anthropic-ai/sdk reads the fake Anthropic stream as the same text, tool calls and usage the adapter assembles', async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: origin, maxRetries: 0 });
    const message = await client.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    const sdk = {
      text: message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
      toolCalls: message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [])),
      usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
      stop: message.stop_reason,
    };
    const ours = await adapterAnswer(anthropic({ apiKey: KEY, baseURL: origin }));
    expect(sdk.stop).toBe('tool_use');
    expect({ text: ours.text, toolCalls: ours.toolCalls, usage: ours.usage }).toEqual({ text: sdk.text, toolCalls: sdk.toolCalls, usage: sdk.usage });
    expect(ours.toolCalls).toHaveLength(2);
  });

  it('openai reads the fake Chat Completions stream (include_usage, [DONE]) as the same text, tool calls and usage the adapter assembles', async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${origin}/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    const sdk = {
      text: message?.content ?? '',
      toolCalls: (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments || '{}') as unknown }] : [])),
      usage: { inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens },
    };
    const ours = await adapterAnswer(openaiCompatible({ apiKey: KEY, baseURL: `${origin}/v1` }));
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect({ text: ours.text, toolCalls: ours.toolCalls, usage: ours.usage }).toEqual(sdk);
    expect(ours.toolCalls).toHaveLength(2);
  });
});
