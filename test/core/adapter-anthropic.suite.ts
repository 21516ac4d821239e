/**
 * anthropic() against a server speaking the Messages API in process: the headers and body it
 * sends for every kind of message, how it reads answers (text, tool_use, stop reasons,
 * usage), 529 overload retried, and a whole tool round trip through the engine and MCP.
 */
import { anthropic, DEFAULT_ANTHROPIC_MAX_TOKENS } from '../../src/anthropic/index.js';
import type { ModelRequest } from '../../src/core/index.js';
import { anthropicError, anthropicMessage, createAnthropicServer } from '../fixtures/provider-anthropic.js';
import { createAdderServer } from '../fixtures/provider-mcp.js';
import type { SuiteHarness } from './harness.js';

const KEY = 'sk-ant-test-0123456789';
const BASE = 'https://anthropic.test/';
const live = () => new AbortController().signal;

const CONVERSATION: ModelRequest = {
  model: 'claude-test',
  system: 'Be brief.',
  messages: [
    { role: 'user', text: 'add 2 and 3, then read x' },
    { role: 'assistant', text: 'Working on it.', toolCalls: [{ id: 'tu_1', name: 'add', input: { a: 2, b: 3 } }, { id: 'tu_2', name: 'read', input: { k: 'x' } }] },
    {
      role: 'tool',
      results: [
        { callId: 'tu_1', toolName: 'add', isError: false, output: '5' },
        { callId: 'tu_2', toolName: 'read', isError: true, output: { error: 'no such key' }, reason: 'execution' },
      ],
    },
    { role: 'assistant', text: '', toolCalls: [{ id: 'tu_3', name: 'add', input: { a: 1, b: 1 } }] },
  ],
  tools: [{ name: 'add', description: 'Add.', parameters: { type: 'object', properties: { a: { type: 'integer' } } } }],
};

export function adapterAnthropicSuite(h: SuiteHarness): void {
  const { expect } = h;

  h.describe('anthropic(): the request', () => {
    h.it('posts to /v1/messages with x-api-key and anthropic-version, never Authorization', async () => {
      const server = createAnthropicServer();
      const model = anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch, headers: { 'X-Trace': 't1', 'X-Api-Key': 'not-mine' } });
      expect(model.id).toBe('anthropic');
      await model.generate({ model: 'claude-test', messages: [{ role: 'user', text: 'hi' }], tools: [] }, live());
      const [sent] = server.requests;
      expect(sent?.path).toBe('/v1/messages');
      expect(sent?.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-trace': 't1' });
      expect(sent?.headers['authorization']).toBeUndefined();
    });

    h.it('maps system, user, assistant text and tool_use, tool_result with is_error, tools as input_schema', async () => {
      const server = createAnthropicServer();
      await anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch, maxTokens: 100 }).generate(CONVERSATION, live());
      expect(server.requests[0]?.body).toEqual({
        model: 'claude-test',
        max_tokens: 100,
        system: 'Be brief.',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'add 2 and 3, then read x' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Working on it.' },
              { type: 'tool_use', id: 'tu_1', name: 'add', input: { a: 2, b: 3 } },
              { type: 'tool_use', id: 'tu_2', name: 'read', input: { k: 'x' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'tu_1', content: '5', is_error: false },
              { type: 'tool_result', tool_use_id: 'tu_2', content: '{"error":"no such key"}', is_error: true },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_3', name: 'add', input: { a: 1, b: 1 } }] },
        ],
        tools: [{ name: 'add', description: 'Add.', input_schema: { type: 'object', properties: { a: { type: 'integer' } } } }],
      });
    });

    h.it('max_tokens defaults to 4096; no system and no tools leave those fields out', async () => {
      const server = createAnthropicServer();
      await anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch }).generate({ model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] }, live());
      expect(DEFAULT_ANTHROPIC_MAX_TOKENS).toBe(4096);
      expect(server.requests[0]?.body).toEqual({ model: 'm', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    });

    h.it('a bad maxTokens or maxRetries is refused when the adapter is made', () => {
      expect(() => anthropic({ apiKey: KEY, maxTokens: 0 })).toThrow(/maxTokens must be a positive integer/);
      expect(() => anthropic({ apiKey: KEY, maxRetries: -1 })).toThrow(/maxRetries must be a non-negative integer/);
    });
  });

  h.describe('anthropic(): the response', () => {
    const answer = async (reply: ReturnType<typeof anthropicMessage>) => {
      const server = createAnthropicServer(() => reply);
      return anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch }).generate(CONVERSATION, live());
    };

    h.it('joins text blocks, skips thinking, reads tool_use blocks and usage', async () => {
      const reply = anthropicMessage({ text: 'b', toolCalls: [{ id: 'tu_9', name: 'add', input: { a: 1, b: 2 } }], usage: { input_tokens: 12, output_tokens: 7 } });
      const body = reply.body as { content: unknown[] };
      body.content.unshift({ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'a' });
      expect(await answer(reply)).toEqual({
        text: 'ab',
        toolCalls: [{ id: 'tu_9', name: 'add', input: { a: 1, b: 2 } }],
        stopReason: 'tool_calls',
        usage: { inputTokens: 12, outputTokens: 7 },
      });
    });

    h.it('stop reasons: end_turn and stop_sequence end, max_tokens, refusal refused', async () => {
      const cases: [string, string][] = [
        ['end_turn', 'end'],
        ['stop_sequence', 'end'],
        ['tool_use', 'tool_calls'],
        ['max_tokens', 'max_tokens'],
        ['refusal', 'refused'],
      ];
      for (const [wire, neutral] of cases) expect((await answer(anthropicMessage({ text: 'x', stopReason: wire }))).stopReason).toBe(neutral);
    });

    h.it('a 529 overloaded answer is retried, then the message is returned', async () => {
      const server = createAnthropicServer();
      server.queue(anthropicError(529, 'Overloaded', { 'retry-after': '0' }), anthropicMessage({ text: 'back' }));
      expect((await anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch }).generate(CONVERSATION, live())).text).toBe('back');
      expect(server.requests.length).toBe(2);
    });
  });

  h.describe('anthropic(): through the engine', () => {
    h.it('a tool round trip: tool_use, the MCP tool runs, its tool_result goes back, the final text ends the agent', async () => {
      const server = createAnthropicServer((body) => {
        const messages = (body as { messages: { content: { type: string; content?: string }[] }[] }).messages;
        const result = messages.at(-1)?.content.find((block) => block.type === 'tool_result');
        return result === undefined
          ? anthropicMessage({ text: 'Adding.', toolCalls: [{ id: 'toolu_01', name: 'calc_add', input: { a: 2, b: 3 } }] })
          : anthropicMessage({ text: `The sum is ${result.content ?? '?'}.` });
      });
      await using source = h.lib.mcp({ transport: 'inprocess', server: createAdderServer(), prefix: 'calc' });
      const engine = h.lib.createEngine({ adapters: [anthropic({ apiKey: KEY, baseURL: BASE, fetch: server.fetch })] });
      const workflow = h.lib.defineWorkflow({ name: 'sum' }, (ctx) => ctx.agent('add 2 and 3', { model: 'anthropic:claude-test', tools: [source] }));
      const outcome = await engine.run(workflow, undefined).result;
      expect(outcome).toMatchObject({ status: 'completed', value: { text: 'The sum is 5.', turns: 2 } });
      expect(server.requests.length).toBe(2);
      const second = server.requests[1]?.body as { messages: unknown[]; tools: { name: string; input_schema: { required?: string[] } }[] };
      expect(second.tools[0]?.name).toBe('calc_add');
      expect(second.tools[0]?.input_schema.required).toEqual(['a', 'b']);
      expect(second.messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'text', text: 'Adding.' }, { type: 'tool_use', id: 'toolu_01', name: 'calc_add', input: { a: 2, b: 3 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '5', is_error: false }] },
      ]);
    });
  });
}
