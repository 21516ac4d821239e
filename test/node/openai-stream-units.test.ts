/**
 * Unit tests of chatDeltas (src/openai/stream.ts) fed chunk by chunk, hostile shapes included:
 * text and refusals, tool calls by index (or by position when a chunk gives none), usage from
 * the last chunk, the stop reason or its fallback (refused wins); null and wrongly typed members
 * skipped; a chunk that is not JSON, an error chunk and a whole body that is not JSON typed and
 * final; a stream ending before [DONE] a retryable cut.
 */
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../src/adapters/sse.js';
import type { ModelDelta } from '../../src/core/model/types.js';
import { Redactor } from '../../src/core/secrets/redactor.js';
import { chatDeltas } from '../../src/openai/stream.js';
import { caught } from '../core/helpers.js';

const DONE = '[DONE]';
async function* eventsOf(items: readonly (object | string)[], whole = false): AsyncGenerator<SseEvent> {
  for (const item of items) yield { event: 'message', data: typeof item === 'string' ? item : JSON.stringify(item), ...(whole ? { whole: true as const } : {}) };
}
const deltasOf = async (items: readonly (object | string)[], whole = false): Promise<ModelDelta[]> => {
  const out: ModelDelta[] = [];
  for await (const delta of chatDeltas(eventsOf(items, whole), 'oai', Redactor.of([]))) out.push(delta);
  return out;
};
const failureOf = async (items: readonly (object | string)[], whole = false) => (await caught(() => deltasOf(items, whole))) as { code?: string; message: string; retryable?: boolean };
const chunk = (delta: unknown, extra: object = {}) => ({ choices: [{ delta, ...extra }] });
const texts = (deltas: ModelDelta[]) => deltas.filter((d) => d.type === 'text').map((d) => (d as { text: string }).text).join('');
/** Each call as the deltas build it (the scrub may re-cut a call's deltas, never change what they build). */
const calls = (deltas: ModelDelta[]) => {
  const built: Record<number, { id?: string; name?: string; input: string }> = {};
  for (const d of deltas) {
    if (d.type !== 'tool_call') continue;
    const call = (built[d.index] ??= { input: '' });
    if (d.id !== undefined) call.id = d.id;
    if (d.name !== undefined) call.name = d.name;
    call.input += d.inputDelta ?? '';
  }
  return built;
};

describe('chatDeltas', () => {
  it('text, tool calls by index or position, usage, and the stop reason', async () => {
    const deltas = await deltasOf([
      chunk({ content: 'Hel' }),
      chunk({ content: '' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'add', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':1}' } }, { function: { arguments: '{"a"' } }, { index: 0, function: { arguments: '{}' } }] }),
      chunk({}, { finish_reason: 'tool_calls' }),
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } },
      DONE,
    ]);
    expect(texts(deltas)).toBe('Hello');
    // The second call of that chunk gives no index: its position (1) is taken.
    expect(calls(deltas)).toEqual({ 0: { input: '{}' }, 1: { id: 'c1', name: 'add', input: ':1}{"a"' } });
    expect(deltas.filter((d) => d.type === 'usage')).toEqual([{ type: 'usage', inputTokens: 3, outputTokens: 4 }]);
    expect(deltas.at(-1)).toEqual({ type: 'end', stopReason: 'tool_calls' });
  });

  it('without a finish reason the end is tool_calls after calls and end otherwise; a refusal wins over both', async () => {
    expect(await deltasOf([chunk({ content: 'x' }), DONE])).toEqual([{ type: 'text', text: 'x' }, { type: 'end', stopReason: 'end' }]);
    expect((await deltasOf([chunk({ tool_calls: [{ index: 0, id: 'i', function: { name: 'n' } }] }), ` ${DONE} `])).at(-1)).toEqual({ type: 'end', stopReason: 'tool_calls' });
    const refused = await deltasOf([chunk({ refusal: 'I will not' }, { finish_reason: 'stop' }), chunk({ refusal: '' }), DONE]);
    expect([texts(refused), refused.at(-1)]).toEqual(['I will not', { type: 'end', stopReason: 'refused' }]);
    expect((await deltasOf([chunk({}, { finish_reason: 'length' }), DONE])).at(-1)).toEqual({ type: 'end', stopReason: 'max_tokens' });
  });

  it('null and wrongly typed members are skipped, never a TypeError', async () => {
    const odd = [
      { choices: null },
      { choices: [null] },
      { choices: [{ delta: null, finish_reason: 5 }] },
      chunk('text'),
      chunk({ content: 5, refusal: 5, tool_calls: 'no' }),
      chunk({ tool_calls: [null] }),
      chunk({ tool_calls: [{ index: 0, id: 5, function: null }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 5, arguments: 5 } }] }),
      { usage: null },
      { usage: { prompt_tokens: '3', completion_tokens: 4 } },
      { usage: { prompt_tokens: 3 } },
      { error: null },
      DONE,
    ];
    const deltas = await deltasOf(odd);
    expect([texts(deltas), calls(deltas), deltas.filter((d) => d.type === 'usage'), deltas.at(-1)]).toEqual(['', { 0: { input: '' } }, [], { type: 'end', stopReason: 'tool_calls' }]);
  });

  it('a chunk that is not JSON, an error chunk and a whole body that is not JSON are typed and final; an early end is a retryable cut', async () => {
    expect(await failureOf(['nope'])).toMatchObject({ code: 'model.protocol', message: 'oai streamed a chunk that is not JSON', retryable: false });
    expect(await failureOf([{ error: { message: 'quota' } }])).toMatchObject({ code: 'model.failed', message: 'oai streamed an error: quota', retryable: false });
    expect(await failureOf(['{broken'], true)).toMatchObject({ code: 'model.protocol', message: 'oai answered with a body that is not JSON (7 characters)', retryable: false });
    expect(await failureOf([chunk({ content: 'x' })])).toMatchObject({ code: 'model.failed', message: "oai's stream ended before data: [DONE]", retryable: true });
  });
});
