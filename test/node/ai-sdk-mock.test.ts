/**
 * aiSdk() over the AI SDK's own mock models (ai/test, MockLanguageModelV3 and V4): the
 * request as the model receives it, answers and streams mapped back, for both specification
 * versions, and models of other versions refused typed when the adapter is made.
 */
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdk, type AiSdkLanguageModel } from '../../src/ai-sdk/index.js';
import { ConfigError, type ModelRequest } from '../../src/core/index.js';
import { caught } from '../core/helpers.js';
import { HELLO, assemble, collect, finish, generated, live, streamed, usage } from './ai-sdk-helpers.js';

/** The mocks' answers here are built loosely on purpose: several are malformed for one version or both. */
type MockAnswers = { doGenerate?: unknown; doStream?: unknown };
const VERSIONS = [
  ['v3', (answers: MockAnswers) => new MockLanguageModelV3(answers as never)],
  ['v4', (answers: MockAnswers) => new MockLanguageModelV4(answers as never)],
] as const;

/** A ConfigError with code `config.invalid_value`. */
const invalid = (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid_value';

const HISTORY: ModelRequest = {
  model: 'm',
  system: 'be brief',
  messages: [
    { role: 'user', text: 'add a note' },
    { role: 'assistant', text: 'adding', toolCalls: [{ id: 'c1', name: 'add_note', input: { title: 't' } }, { id: 'c2', name: 'list', input: {} }] },
    {
      role: 'tool',
      results: [
        { callId: 'c1', toolName: 'add_note', isError: false, output: 'saved' },
        { callId: 'c2', toolName: 'list', isError: true, output: { error: 'denied' }, reason: 'denied' },
      ],
    },
    { role: 'assistant', text: '', toolCalls: [{ id: 'c3', name: 'list', input: { all: true } }] },
    { role: 'tool', results: [{ callId: 'c3', toolName: 'list', isError: false, output: [{ title: 't' }] }] },
  ],
  tools: [{ name: 'add_note', description: 'Adds a note', parameters: { type: 'object', properties: { title: { type: 'string' } } } }],
};

const PROMPT = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: [{ type: 'text', text: 'add a note' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'adding' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'add_note', input: { title: 't' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'list', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'add_note', output: { type: 'text', value: 'saved' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'list', output: { type: 'error-json', value: { error: 'denied' } } },
    ],
  },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'list', input: { all: true } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'list', output: { type: 'json', value: [{ title: 't' }] } }] },
];

const TOOL_ANSWER = [
  { type: 'reasoning', text: 'thinking' },
  { type: 'text', text: 'I will ' },
  { type: 'text', text: 'add it' },
  { type: 'tool-call', toolCallId: 'call-1', toolName: 'add_note', input: '{"title":"t"}' },
  { type: 'tool-call', toolCallId: 'srv-1', toolName: 'web_search', input: '{}', providerExecuted: true },
  { type: 'tool-result', toolCallId: 'srv-1', toolName: 'web_search', result: {} },
  { type: 'tool-call', toolCallId: 'call-2', toolName: 'list', input: '' },
];

for (const [version, mock] of VERSIONS) {
  describe(`aiSdk() over MockLanguageModel${version.toUpperCase()}`, () => {
    it('passes the system text, user text, assistant tool calls, tool results and tools as the model contract says', async () => {
      const model = mock({ doGenerate: generated([{ type: 'text', text: 'ok' }]) });
      await aiSdk(model).generate(HISTORY, live());
      const options = model.doGenerateCalls[0];
      expect(options?.prompt).toEqual(PROMPT);
      expect(options?.tools).toEqual([{ type: 'function', name: 'add_note', description: 'Adds a note', inputSchema: HISTORY.tools[0]?.parameters }]);
      expect(options?.toolChoice).toEqual({ type: 'auto' });
      expect(options?.abortSignal).toBeInstanceOf(AbortSignal);
    });

    it('sends no tools and no tool choice when the agent has no tools', async () => {
      const model = mock({ doStream: streamed([finish()]) });
      await collect(aiSdk(model));
      expect(model.doStreamCalls[0]).not.toHaveProperty('tools');
      expect(model.doStreamCalls[0]).not.toHaveProperty('toolChoice');
    });

    it('answers text parts joined, the calls the client runs with parsed input, the stop reason and usage', async () => {
      const model = mock({ doGenerate: generated(TOOL_ANSWER, 'tool-calls', usage(11, 7)) });
      expect(await aiSdk(model).generate(HISTORY, live())).toEqual({
        text: 'I will add it',
        toolCalls: [
          { id: 'call-1', name: 'add_note', input: { title: 't' } },
          { id: 'call-2', name: 'list', input: {} },
        ],
        stopReason: 'tool_calls',
        usage: { inputTokens: 11, outputTokens: 7 },
      });
    });

    it.each([
      ['stop', 'end'],
      ['length', 'max_tokens'],
      ['content-filter', 'refused'],
      ['tool-calls', 'end'],
      ['other', 'end'],
      ['a reason of a later version', 'end'],
      ['constructor', 'end'],
    ])('maps finish reason %s to stop reason %s', async (unified, stopReason) => {
      const model = mock({ doGenerate: generated([{ type: 'text', text: 'x' }], unified) });
      expect((await aiSdk(model).generate(HELLO, live())).stopReason).toBe(stopReason);
    });

    it('reads an answer without usage totals as one without usage', async () => {
      const model = mock({ doGenerate: generated([{ type: 'text', text: 'x' }], 'stop', usage(Number.NaN, 2)) });
      expect(await aiSdk(model).generate(HELLO, live())).toEqual({ text: 'x', toolCalls: [], stopReason: 'end' });
    });

    it('streams text, tool calls by index and usage, ending with the stop reason, assembling to what generate answers', async () => {
      const parts = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'r1' },
        { type: 'reasoning-delta', id: 'z', delta: 'hmm' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'I will ' },
        { type: 'text-delta', id: 't', delta: 'add it' },
        { type: 'text-end', id: 't' },
        { type: 'tool-input-start', id: 'call-1', toolName: 'add_note' },
        { type: 'tool-input-delta', id: 'call-1', delta: '{"title"' },
        { type: 'tool-input-delta', id: 'call-1', delta: ':"t"}' },
        { type: 'tool-input-end', id: 'call-1' },
        { type: 'tool-call', toolCallId: 'call-1', toolName: 'add_note', input: '{"title":"t"}' },
        { type: 'tool-call', toolCallId: 'call-2', toolName: 'list', input: '{"all":true}' },
        finish('tool-calls', usage(11, 7)),
      ];
      const model = mock({ doStream: streamed(parts), doGenerate: generated(TOOL_ANSWER.slice(1, 4).concat([{ type: 'tool-call', toolCallId: 'call-2', toolName: 'list', input: '{"all":true}' }]), 'tool-calls', usage(11, 7)) });
      const adapter = aiSdk(model);
      const deltas = await collect(adapter, HISTORY);
      expect(deltas).toEqual([
        { type: 'text', text: 'I will ' },
        { type: 'text', text: 'add it' },
        { type: 'tool_call', index: 0, id: 'call-1', name: 'add_note' },
        { type: 'tool_call', index: 0, inputDelta: '{"title"' },
        { type: 'tool_call', index: 0, inputDelta: ':"t"}' },
        { type: 'tool_call', index: 1, id: 'call-2', name: 'list' },
        { type: 'tool_call', index: 1, inputDelta: '{"all":true}' },
        { type: 'usage', inputTokens: 11, outputTokens: 7 },
        { type: 'end', stopReason: 'tool_calls' },
      ]);
      expect(assemble(deltas)).toEqual(await adapter.generate(HISTORY, live()));
      expect(model.doStreamCalls[0]?.prompt).toEqual(PROMPT);
    });

    it('sends from the final tool-call part what its input deltas had not carried yet', async () => {
      const parts = [
        { type: 'tool-input-start', id: 'c', toolName: 'add_note' },
        { type: 'tool-input-delta', id: 'c', delta: '{"title":' },
        { type: 'tool-call', toolCallId: 'c', toolName: 'add_note', input: '{"title":"t"}' },
        finish('tool-calls'),
      ];
      const deltas = await collect(aiSdk(mock({ doStream: streamed(parts) })));
      expect(assemble(deltas).toolCalls).toEqual([{ id: 'c', name: 'add_note', input: { title: 't' } }]);
    });

    it('ignores parts past the finish, and skips the calls the provider runs itself', async () => {
      const parts = [
        { type: 'tool-input-start', id: 's', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-delta', id: 's', delta: '{}' },
        { type: 'tool-call', toolCallId: 's', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'text-delta', id: 't', delta: 'done' },
        finish(),
        { type: 'text-delta', id: 't', delta: ' and more' },
      ];
      expect(await collect(aiSdk(mock({ doStream: streamed(parts) })))).toEqual([
        { type: 'text', text: 'done' },
        { type: 'usage', inputTokens: 3, outputTokens: 5 },
        { type: 'end', stopReason: 'end' },
      ]);
    });
  });
}

describe('aiSdk() streamed tool input of other shapes', () => {
  it("sends v4's text-encoded input deltas (a raw string, not JSON) whole from the final tool-call part", async () => {
    const parts = [
      { type: 'tool-input-start', id: 'c', toolName: 'shell', inputEncoding: 'text' },
      { type: 'tool-input-delta', id: 'c', delta: 'ls ' },
      { type: 'tool-input-delta', id: 'c', delta: '-la' },
      { type: 'tool-call', toolCallId: 'c', toolName: 'shell', input: '"ls -la"' },
      finish('tool-calls'),
    ];
    const deltas = await collect(aiSdk(new MockLanguageModelV4({ doStream: streamed(parts) })));
    expect(deltas.filter((delta) => delta.type === 'tool_call')).toEqual([
      { type: 'tool_call', index: 0, id: 'c', name: 'shell' },
      { type: 'tool_call', index: 0, inputDelta: '"ls -la"' },
    ]);
  });

  it('accepts input deltas that spell the final input as the same JSON with other spacing', async () => {
    const parts = [
      { type: 'tool-input-start', id: 'c', toolName: 'add' },
      { type: 'tool-input-delta', id: 'c', delta: '{ "a": 1 }' },
      { type: 'tool-call', toolCallId: 'c', toolName: 'add', input: '{"a":1}' },
      finish('tool-calls'),
    ];
    const deltas = await collect(aiSdk(new MockLanguageModelV4({ doStream: streamed(parts) })));
    expect(assemble(deltas).toolCalls).toEqual([{ id: 'c', name: 'add', input: { a: 1 } }]);
  });
});

describe('aiSdk() construction', () => {
  const model = (fields: Record<string, unknown>) => ({ provider: 'p', modelId: 'm', doGenerate: async () => ({}), doStream: async () => ({}), ...fields }) as unknown as AiSdkLanguageModel;

  it.each(['v2', 'v1', 'v5', undefined, 4])('refuses a model of specification %s, typed, before any call', async (version) => {
    const error = await caught(() => aiSdk(model({ specificationVersion: version })));
    expect(invalid(error)).toBe(true);
    expect((error as Error).message).toMatch(/supports language models of specification v3 and v4/);
    if (version === 'v2') expect((error as Error).message).toMatch(/AI SDK 5 or older: upgrade/);
  });

  it('refuses what is not a model object: null, missing methods, a getter that throws', async () => {
    const throwing = Object.defineProperty({}, 'specificationVersion', { get: () => { throw new Error('boom'); } });
    for (const junk of [null, 'openai', model({ specificationVersion: 'v4', doStream: undefined }), throwing]) {
      expect(invalid(await caught(() => aiSdk(junk as AiSdkLanguageModel)))).toBe(true);
    }
  });

  it('takes an id (default ai-sdk) and refuses one the router could not split, and bounds that are not positive integers', async () => {
    const v4 = new MockLanguageModelV4();
    expect(aiSdk(v4).id).toBe('ai-sdk');
    expect(aiSdk(v4, { id: 'gemini' }).id).toBe('gemini');
    for (const options of [{ id: 'a:b' }, { id: '' }, { timeoutMs: 0 }, { maxAnswerChars: 1.5 }, { maxStreamParts: -1 }, { secrets: ['ok', 3] }]) {
      expect(invalid(await caught(() => aiSdk(v4, options as never)))).toBe(true);
    }
  });
});
