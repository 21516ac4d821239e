/**
 * Unit tests of anthropicDeltas (src/anthropic/stream.ts) fed event by event, hostile shapes
 * included: the deltas of a whole stream exactly (text, tool calls numbered among tool calls
 * only, cumulative usage, the stop reason or its fallback); members that are null or of the
 * wrong type skipped, never a TypeError; each refusal typed and final; an error event's
 * retryability by its type; a stream ending before message_stop a retryable cut.
 */
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../src/adapters/sse.js';
import { anthropicDeltas } from '../../src/anthropic/stream.js';
import type { ModelDelta } from '../../src/core/model/types.js';
import { Redactor } from '../../src/core/secrets/redactor.js';
import { caught } from '../core/helpers.js';

async function* eventsOf(items: readonly (object | string)[]): AsyncGenerator<SseEvent> {
  for (const item of items) yield { event: 'message', data: typeof item === 'string' ? item : JSON.stringify(item) };
}
const deltasOf = async (items: readonly (object | string)[]): Promise<ModelDelta[]> => {
  const out: ModelDelta[] = [];
  for await (const delta of anthropicDeltas(eventsOf(items), Redactor.of([]))) out.push(delta);
  return out;
};
const failureOf = async (items: readonly (object | string)[]) => (await caught(() => deltasOf(items))) as { code?: string; message: string; retryable?: boolean };
const STOP = { type: 'message_stop' };

describe('anthropicDeltas', () => {
  it('a whole stream: text, tool calls numbered among tool calls, cumulative usage, the mapped stop reason', async () => {
    const deltas = await deltasOf([
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'tu_1', name: 'add' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } },
        { type: 'ping' },
        { type: 'content_block_start', index: 2, content_block: { type: 'thinking', text: 'hidden' } },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7, input_tokens: 6 } },
        STOP,
    ]);
    // The scrub holds text back (a secret may span deltas), so kinds are compared apart.
    const of = (type: ModelDelta['type']) => deltas.filter((d) => d.type === type);
    expect(of('text').map((d) => (d as { text: string }).text).join('')).toBe('Hi there');
    expect(of('tool_call')).toEqual([
      { type: 'tool_call', index: 0, id: 'tu_1', name: 'add' },
      { type: 'tool_call', index: 0, inputDelta: '{"a":1}' },
    ]);
    expect(of('usage')).toEqual([{ type: 'usage', inputTokens: 6, outputTokens: 7 }]);
    expect(deltas.at(-1)).toEqual({ type: 'end', stopReason: 'tool_calls' });
  });

  it('without a stop reason the end is tool_calls when there were calls and end otherwise; usage only when counted', async () => {
    expect(await deltasOf([{ type: 'message_start', message: { usage: { input_tokens: 3 } } }, STOP])).toEqual([{ type: 'end', stopReason: 'end' }]);
    const withCall = await deltasOf([{ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'i', name: 'n' } }, { type: 'message_delta', delta: { stop_reason: 'made_up' } }, STOP]);
    expect(withCall.at(-1)).toEqual({ type: 'end', stopReason: 'tool_calls' });
    expect(await deltasOf([{ type: 'message_start', message: { usage: { input_tokens: 2, output_tokens: 4 } } }, { type: 'message_delta', delta: { stop_reason: 'end_turn' } }, STOP])).toEqual([
      { type: 'usage', inputTokens: 2, outputTokens: 4 },
      { type: 'end', stopReason: 'end' },
    ]);
    expect(await deltasOf([{ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } }, STOP])).toEqual([
      { type: 'usage', inputTokens: 0, outputTokens: 9 },
      { type: 'end', stopReason: 'max_tokens' },
    ]);
  });

  it('members that are null or of the wrong type are skipped, never a TypeError', async () => {
    const odd = [
      { type: 'message_start', message: null },
      { type: 'message_start', message: { usage: null } },
      { type: 'message_start', message: { usage: { input_tokens: '5', output_tokens: '1' } } },
      { type: 'content_block_start', content_block: null },
      { type: 'content_block_start', content_block: { type: 'text', text: 5 } },
      { type: 'content_block_delta', delta: null },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 5 } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 5 } },
      { type: 'message_delta', delta: null, usage: null },
      { type: 'message_delta', delta: { stop_reason: 5 }, usage: { output_tokens: '9', input_tokens: null } },
      STOP,
    ];
    expect(await deltasOf(odd)).toEqual([{ type: 'end', stopReason: 'end' }]);
  });

  it('each malformed event is model.protocol, final, saying what was wrong', async () => {
    const toolUse = 'anthropic streamed a tool_use block without an index, a string id and a name';
    for (const block of [{ id: 'i', name: 'n' }, { index: 0, name: 'n' }, { index: 0, id: 'i' }, { index: '0', id: 'i', name: 'n' }]) {
      const { index, ...rest } = block as { index?: unknown };
      expect(await failureOf([{ type: 'content_block_start', index, content_block: { type: 'tool_use', ...rest } }])).toMatchObject({ code: 'model.protocol', message: toolUse, retryable: false });
    }
    const orphan = 'anthropic streamed input_json_delta for a block that is no tool_use';
    expect(await failureOf([{ type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{' } }])).toMatchObject({ code: 'model.protocol', message: orphan });
    expect(await failureOf([{ type: 'content_block_delta', index: '0', delta: { type: 'input_json_delta', partial_json: '{' } }])).toMatchObject({ message: orphan });
    expect(await failureOf(['not json'])).toMatchObject({ code: 'model.protocol', message: 'anthropic streamed an event whose data is not JSON', retryable: false });
  });

  it('an error event is model.failed, retryable by its type; a stream ending before message_stop is a retryable cut', async () => {
    const overloaded = await failureOf([{ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }]);
    expect(overloaded).toMatchObject({ code: 'model.failed', message: 'anthropic streamed an error (overloaded_error): busy', retryable: true });
    for (const type of ['rate_limit_error', 'api_error', 'timeout_error']) expect((await failureOf([{ type: 'error', error: { type, message: 'm' } }])).retryable).toBe(true);
    expect(await failureOf([{ type: 'error', error: { type: 'invalid_request_error', message: 'no' } }])).toMatchObject({ retryable: false, message: 'anthropic streamed an error (invalid_request_error): no' });
    expect((await failureOf([{ type: 'error', error: null }])).message).toMatch(/^anthropic streamed an error \(error\): /);
    expect(await failureOf([{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'x' } }])).toMatchObject({ code: 'model.failed', message: "anthropic's stream ended before message_stop", retryable: true });
  });
});
