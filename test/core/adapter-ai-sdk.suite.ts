/**
 * aiSdk() in every runtime (Node, workerd, Chromium): the entry loads and runs with Web APIs
 * only. A hand-made v4 model stands in for a provider package (ai/test is a Node-side
 * helper); Node's own tests run the AI SDK's mocks and @ai-sdk/openai (test/node/ai-sdk-*).
 */
import { aiSdk, type AiSdkLanguageModel } from '../../src/ai-sdk/index.js';
import type { ModelRequest } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';

const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'add' }], tools: [{ name: 'add', description: 'Adds', parameters: { type: 'object' } }] };
const FINISH = { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 4 }, outputTokens: { total: 2 } } };

function model(onCancel: () => void = () => undefined): AiSdkLanguageModel {
  const parts = [
    { type: 'text-delta', id: 't', delta: 'Adding.' },
    { type: 'tool-input-start', id: 'c1', toolName: 'add' },
    { type: 'tool-input-delta', id: 'c1', delta: '{"a":2}' },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2}' },
    FINISH,
  ];
  return {
    specificationVersion: 'v4',
    provider: 'hand',
    modelId: 'made',
    doGenerate: async () => ({ content: [{ type: 'text', text: 'Adding.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2}' }], finishReason: FINISH.finishReason, usage: FINISH.usage, warnings: [] }),
    doStream: async () => ({ stream: new ReadableStream({ start: (controller) => parts.forEach((part) => controller.enqueue(part)), cancel: onCancel }) }),
  } as AiSdkLanguageModel;
}

export function adapterAiSdkSuite(h: SuiteHarness): void {
  const { expect } = h;
  h.describe('aiSdk() over a v4 model object', () => {
    h.it('generate and stream give the same answer: text, the tool call with parsed input, tool_calls, usage', async () => {
      const adapter = aiSdk(model());
      const answer = { text: 'Adding.', toolCalls: [{ id: 'c1', name: 'add', input: { a: 2 } }], stopReason: 'tool_calls', usage: { inputTokens: 4, outputTokens: 2 } };
      expect(await adapter.generate(REQUEST, new AbortController().signal)).toEqual(answer);
      const deltas = [];
      for await (const delta of adapter.stream!(REQUEST, new AbortController().signal)) deltas.push(delta);
      expect(deltas).toEqual([
        { type: 'text', text: 'Adding.' },
        { type: 'tool_call', index: 0, id: 'c1', name: 'add' },
        { type: 'tool_call', index: 0, inputDelta: '{"a":2}' },
        { type: 'usage', inputTokens: 4, outputTokens: 2 },
        { type: 'end', stopReason: 'tool_calls' },
      ]);
    });

    h.it("a consumer that stops iterating mid-stream cancels the provider's stream", async () => {
      let cancelled = false;
      const adapter = aiSdk(model(() => void (cancelled = true)));
      for await (const delta of adapter.stream!(REQUEST, new AbortController().signal)) if (delta.type === 'text') break;
      expect(cancelled).toBe(true);
    });
  });
}
