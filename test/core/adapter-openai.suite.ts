/**
 * openaiCompatible() against a server speaking Chat Completions in process: the Bearer header
 * and body it sends, how it reads answers (content, tool_calls with JSON-string arguments,
 * finish reasons, refusals, usage), tool-call arguments that are not JSON becoming an
 * invalid_input result the model sees, and a tool round trip through the engine and MCP.
 */
import type { ModelRequest } from '../../src/core/index.js';
import { openaiCompatible } from '../../src/openai/index.js';
import { createAdderServer } from '../fixtures/provider-mcp.js';
import { chatCompletion, createOpenAIServer } from '../fixtures/provider-openai.js';
import type { SuiteHarness } from './harness.js';

const KEY = 'sk-proj-test-0123456789';
const BASE = 'https://openai.test/v1';
const live = () => new AbortController().signal;

type ToolMessage = { role: string; tool_call_id?: string; content?: string | null; tool_calls?: { function: { arguments: string } }[] };

const CONVERSATION: ModelRequest = {
  model: 'gpt-test',
  system: 'Be brief.',
  messages: [
    { role: 'user', text: 'add 2 and 3' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'add', input: { a: 2, b: 3 } }, { id: 'call_2', name: 'add', input: '{"a":' }] },
    {
      role: 'tool',
      results: [
        { callId: 'call_1', toolName: 'add', isError: false, output: '5' },
        { callId: 'call_2', toolName: 'add', isError: true, output: { error: 'invalid' }, reason: 'invalid_input' },
      ],
    },
    { role: 'assistant', text: 'It is 5.', toolCalls: [] },
  ],
  tools: [{ name: 'add', description: 'Add.', parameters: { type: 'object' } }],
};

export function adapterOpenAISuite(h: SuiteHarness): void {
  const { expect } = h;
  const make = (server: { fetch: (input: string, init: RequestInit) => Promise<Response> }, id?: string) =>
    openaiCompatible({ apiKey: KEY, baseURL: BASE, fetch: server.fetch, ...(id === undefined ? {} : { id }) });

  h.describe('openaiCompatible(): the request', () => {
    h.it('posts to <baseURL>/chat/completions with Authorization: Bearer; the id is configurable', async () => {
      const server = createOpenAIServer();
      const model = openaiCompatible({ apiKey: KEY, baseURL: `${BASE}/`, fetch: server.fetch, headers: { Authorization: 'Bearer other', 'X-Trace': 't1' } });
      expect(model.id).toBe('openai');
      expect(make(server, 'local').id).toBe('local');
      await model.generate({ model: 'gpt-test', messages: [{ role: 'user', text: 'hi' }], tools: [] }, live());
      const [sent] = server.requests;
      expect(sent?.path).toBe('/v1/chat/completions');
      expect(sent?.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-trace': 't1' });
      expect(sent?.headers['x-api-key']).toBeUndefined();
      expect(sent?.body).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    });

    h.it('maps system, assistant tool_calls with string arguments, role tool with tool_call_id, function tools', async () => {
      const server = createOpenAIServer();
      await make(server).generate(CONVERSATION, live());
      expect(server.requests[0]?.body).toEqual({
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'add 2 and 3' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
              // Unparseable arguments go back exactly as the model sent them.
              { id: 'call_2', type: 'function', function: { name: 'add', arguments: '{"a":' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '5' },
          { role: 'tool', tool_call_id: 'call_2', content: '{"error":"invalid"}' },
          { role: 'assistant', content: 'It is 5.' },
        ],
        tools: [{ type: 'function', function: { name: 'add', description: 'Add.', parameters: { type: 'object' } } }],
      });
    });

    h.it('a missing baseURL is refused when the adapter is made', () => {
      expect(() => openaiCompatible({ apiKey: KEY, baseURL: '' })).toThrow(/needs a baseURL/);
    });
  });

  h.describe('openaiCompatible(): the response', () => {
    const answer = async (reply: ReturnType<typeof chatCompletion>) => make(createOpenAIServer(() => reply)).generate(CONVERSATION, live());

    h.it('reads content, tool_calls with parsed arguments, and usage', async () => {
      const reply = chatCompletion({ text: 'calling', toolCalls: [{ id: 'call_9', name: 'add', arguments: '{"a":1,"b":2}' }, { id: 'call_10', name: 'noop', arguments: '' }], usage: { prompt_tokens: 12, completion_tokens: 7 } });
      expect(await answer(reply)).toEqual({
        text: 'calling',
        toolCalls: [
          { id: 'call_9', name: 'add', input: { a: 1, b: 2 } },
          { id: 'call_10', name: 'noop', input: {} },
        ],
        stopReason: 'tool_calls',
        usage: { inputTokens: 12, outputTokens: 7 },
      });
    });

    h.it('finish reasons: stop ends, length is max_tokens, content_filter and a refusal are refused', async () => {
      expect((await answer(chatCompletion({ text: 'x', finishReason: 'stop' }))).stopReason).toBe('end');
      expect((await answer(chatCompletion({ text: 'x', finishReason: 'length' }))).stopReason).toBe('max_tokens');
      expect((await answer(chatCompletion({ text: null, finishReason: 'content_filter' }))).stopReason).toBe('refused');
      expect(await answer(chatCompletion({ text: null, refusal: 'I cannot help with that.' }))).toMatchObject({ text: 'I cannot help with that.', stopReason: 'refused' });
    });

    h.it('arguments that are not JSON do not throw: the raw string is the input', async () => {
      const reply = chatCompletion({ toolCalls: [{ id: 'call_x', name: 'add', arguments: '{"a": 2, "b":' }] });
      expect((await answer(reply)).toolCalls).toEqual([{ id: 'call_x', name: 'add', input: '{"a": 2, "b":' }]);
    });
  });

  h.describe('openaiCompatible(): through the engine', () => {
    const turnsOf = (server: ReturnType<typeof createOpenAIServer>) => server.requests.map((r) => (r.body as { messages: ToolMessage[] }).messages);

    h.it('a tool round trip: tool_calls, the MCP tool runs, a tool message goes back, the final text ends the agent', async () => {
      const server = createOpenAIServer((body) => {
        const last = (body as { messages: ToolMessage[] }).messages.at(-1);
        return last?.role === 'tool'
          ? chatCompletion({ text: `The sum is ${last.content ?? '?'}.` })
          : chatCompletion({ toolCalls: [{ id: 'call_abc', name: 'calc_add', arguments: '{"a":2,"b":3}' }] });
      });
      await using source = h.lib.mcp({ transport: 'inprocess', server: createAdderServer(), prefix: 'calc' });
      const engine = h.lib.createEngine({ adapters: [make(server)] });
      const workflow = h.lib.defineWorkflow({ name: 'sum' }, (ctx) => ctx.agent('add 2 and 3', { model: 'openai:gpt-test', tools: [source] }));
      expect(await engine.run(workflow, undefined).result).toMatchObject({ status: 'completed', value: { text: 'The sum is 5.', turns: 2 } });
      const second = server.requests[1]?.body as { tools: { function: { name: string; parameters: { required?: string[] } } }[] };
      expect(second.tools[0]?.function.name).toBe('calc_add');
      expect(second.tools[0]?.function.parameters.required).toEqual(['a', 'b']);
      expect(turnsOf(server)[1]?.slice(1)).toEqual([
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'calc_add', arguments: '{"a":2,"b":3}' } }] },
        { role: 'tool', tool_call_id: 'call_abc', content: '5' },
      ]);
    });

    h.it('arguments that are not JSON become an invalid_input result the model sees; the run goes on', async () => {
      const server = createOpenAIServer((body) =>
        (body as { messages: ToolMessage[] }).messages.at(-1)?.role === 'tool'
          ? chatCompletion({ text: 'sorry' })
          : chatCompletion({ toolCalls: [{ id: 'call_bad', name: 'calc_add', arguments: '{"a": 2, "b":' }] }),
      );
      await using source = h.lib.mcp({ transport: 'inprocess', server: createAdderServer(), prefix: 'calc' });
      const engine = h.lib.createEngine({ adapters: [make(server)] });
      const workflow = h.lib.defineWorkflow({ name: 'bad-args' }, (ctx) => ctx.agent('add', { model: 'openai:gpt-test', tools: [source] }));
      const outcome = await engine.run(workflow, undefined).result;
      expect(outcome).toMatchObject({ status: 'completed', value: { text: 'sorry' } });
      const history = outcome.status === 'completed' ? outcome.value.history : [];
      expect(history[2]).toMatchObject({ role: 'tool', results: [{ callId: 'call_bad', isError: true, reason: 'invalid_input' }] });
      const [assistant, toolMessage] = turnsOf(server)[1]?.slice(1) ?? [];
      expect(assistant?.tool_calls?.[0]?.function.arguments).toBe('{"a": 2, "b":');
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' });
      expect(toolMessage?.content).toMatch(/invalid/);
    });
  });
}
