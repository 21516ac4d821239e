/**
 * Unit tests of `scripted()` (src/testing): the adapter users test their workflows and UIs
 * with, so what it answers must be exactly what its docs say. A list answers an agent's n-th
 * turn with its n-th entry (n = assistant messages in the request) and refuses a turn past its
 * end; a function decides; every request is recorded as it was; ids default to
 * `scripted-<turn>-<index>`; with `{ stream }` the same answer comes as deltas of `chunkChars`
 * code points, `delayMs` apart, stopped by the signal.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Message, ModelDelta, ModelRequest } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';

const signal = new AbortController().signal;
const asked = (assistantTurns: number, extra: Partial<ModelRequest> = {}): ModelRequest => {
  const messages: Message[] = [{ role: 'user', text: 'go' }];
  for (let i = 0; i < assistantTurns; i += 1) messages.push({ role: 'assistant', text: `t${i}`, toolCalls: [] });
  return { model: 'm', messages, tools: [], ...extra };
};

async function deltas(model: ReturnType<typeof scripted>, request: ModelRequest, stop = signal): Promise<ModelDelta[]> {
  const out: ModelDelta[] = [];
  for await (const delta of model.stream!(request, stop)) out.push(delta);
  return out;
}

describe('scripted(): answers', () => {
  it('refuses anything but a list or a function, saying what it takes', () => {
    for (const bad of [undefined, null, 'turn', 3, { 0: 'a' }]) {
      expect(() => scripted(bad as never)).toThrow(new TypeError('scripted() takes a list of turns or a function from request to turn'));
    }
  });

  it('a list answers turn n with its n-th entry, counted by the assistant messages asked with', async () => {
    const model = scripted(['first', { text: 'second' }, 'third']);
    expect(model.id).toBe('scripted');
    expect(await model.generate(asked(2), signal)).toEqual({ text: 'third', toolCalls: [], stopReason: 'end' });
    expect(await model.generate(asked(0), signal)).toEqual({ text: 'first', toolCalls: [], stopReason: 'end' });
    expect(await model.generate(asked(1), signal)).toEqual({ text: 'second', toolCalls: [], stopReason: 'end' });
    // Tool messages and the user's do not count as turns.
    const withTools = asked(1);
    withTools.messages.push({ role: 'tool', results: [] }, { role: 'user', text: 'more' });
    expect((await model.generate(withTools, signal)).text).toBe('second');
  });

  it('a turn past the end of the list is refused, naming both counts', async () => {
    const model = scripted(['only']);
    await expect(model.generate(asked(1), signal)).rejects.toThrow('scripted model: the script has 1 turns and turn 1 was asked for');
    await expect(scripted([]).generate(asked(0), signal)).rejects.toThrow('the script has 0 turns and turn 0 was asked for');
  });

  it('a function decides, sync or async; undefined is an empty final turn', async () => {
    const seen: ModelRequest[] = [];
    const model = scripted(async (request) => {
      seen.push(request);
      return request.messages.length === 1 ? 'from a promise' : (undefined as never);
    });
    expect(await model.generate(asked(0), signal)).toEqual({ text: 'from a promise', toolCalls: [], stopReason: 'end' });
    expect(await model.generate(asked(3), signal)).toEqual({ text: '', toolCalls: [], stopReason: 'end' });
    expect(seen.map((r) => r.messages.length)).toEqual([1, 4]);
    expect(await scripted(() => ({ text: 'sync' })).generate(asked(0), signal)).toMatchObject({ text: 'sync' });
  });

  it('tool calls: ids default to scripted-<turn>-<index>, a given id is kept, and the stop reason says tool_calls', async () => {
    const model = scripted(['a', { text: 'calling', toolCalls: [{ name: 'x', input: { n: 1 } }, { id: 'mine', name: 'y', input: null }, { name: 'z', input: 'raw' }] }]);
    expect(await model.generate(asked(1), signal)).toEqual({
      text: 'calling',
      toolCalls: [
        { id: 'scripted-1-0', name: 'x', input: { n: 1 } },
        { id: 'mine', name: 'y', input: null },
        { id: 'scripted-1-2', name: 'z', input: 'raw' },
      ],
      stopReason: 'tool_calls',
    });
    // A turn with no text has empty text; an empty list of calls ends the agent.
    expect(await scripted([{ toolCalls: [] }]).generate(asked(0), signal)).toEqual({ text: '', toolCalls: [], stopReason: 'end' });
  });

  it('usage is passed on when the turn has it, and the key is absent otherwise', async () => {
    const model = scripted([{ text: 'u', usage: { inputTokens: 3, outputTokens: 5 } }, 'none']);
    expect(await model.generate(asked(0), signal)).toEqual({ text: 'u', toolCalls: [], stopReason: 'end', usage: { inputTokens: 3, outputTokens: 5 } });
    expect(Object.keys(await model.generate(asked(1), signal))).toEqual(['text', 'toolCalls', 'stopReason']);
  });

  it('records every request as it was asked: calls counts them, later changes to the caller\'s arrays do not reach the record', async () => {
    const model = scripted(['a', 'b']);
    expect([model.calls, model.requests]).toEqual([0, []]);
    const request = asked(0, { tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }], system: 'be brief' });
    await model.generate(request, signal);
    request.messages.push({ role: 'user', text: 'added later' });
    (request.tools as unknown[]).pop();
    expect(model.calls).toBe(1);
    expect(model.requests[0]).toEqual({ ...asked(0), tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }], system: 'be brief' });
    expect(model.requests[0]).not.toBe(request);
    // A refused turn is recorded too: it was asked for.
    await model.generate(asked(5), signal).catch(() => undefined);
    expect(model.calls).toBe(2);
  });
});

describe('scripted(): streaming', () => {
  it('no stream unless asked: stream false or absent leaves generate only', () => {
    expect('stream' in scripted(['a'])).toBe(false);
    expect('stream' in scripted(['a'], { stream: false })).toBe(false);
    expect(typeof scripted(['a'], { stream: true }).stream).toBe('function');
  });

  it('stream: true cuts text and inputs into pieces of 4 code points, then usage and the end', async () => {
    const model = scripted([{ text: 'héllo wörld 😀!', toolCalls: [{ name: 'f', input: { q: 'abc' } }], usage: { inputTokens: 1, outputTokens: 2 } }], { stream: true });
    expect(await deltas(model, asked(0))).toEqual([
      { type: 'text', text: 'héll' },
      { type: 'text', text: 'o wö' },
      { type: 'text', text: 'rld ' },
      { type: 'text', text: '😀!' },
      { type: 'tool_call', index: 0, id: 'scripted-0-0', name: 'f' },
      { type: 'tool_call', index: 0, inputDelta: '{"q"' },
      { type: 'tool_call', index: 0, inputDelta: ':"ab' },
      { type: 'tool_call', index: 0, inputDelta: 'c"}' },
      { type: 'usage', inputTokens: 1, outputTokens: 2 },
      { type: 'end', stopReason: 'tool_calls' },
    ]);
    // The streamed request is recorded as a generate's is.
    expect(model.calls).toBe(1);
  });

  it('chunkChars sets the piece size; anything but a positive integer is refused', async () => {
    const model = scripted(['abcdefg'], { stream: { chunkChars: 3 } });
    expect((await deltas(model, asked(0))).map((d) => (d.type === 'text' ? d.text : d.type))).toEqual(['abc', 'def', 'g', 'end']);
    expect((await deltas(scripted(['abc'], { stream: { chunkChars: 1 } }), asked(0))).filter((d) => d.type === 'text')).toHaveLength(3);
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      await expect(deltas(scripted(['abc'], { stream: { chunkChars: bad } }), asked(0))).rejects.toThrow(`scripted() stream.chunkChars must be a positive integer, got ${String(bad)}`);
    }
  });

  it('delayMs waits that long before each delta, and an abort stops the stream with the signal\'s reason', async () => {
    vi.useFakeTimers();
    try {
      const model = scripted(['abcd'], { stream: { chunkChars: 2, delayMs: 100 } });
      const got: string[] = [];
      const done = (async () => {
        for await (const delta of model.stream!(asked(0), signal)) got.push(delta.type === 'text' ? delta.text : delta.type);
      })();
      await vi.advanceTimersByTimeAsync(99);
      expect(got).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(got).toEqual(['ab']);
      await vi.advanceTimersByTimeAsync(199);
      expect(got).toEqual(['ab', 'cd']);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(got).toEqual(['ab', 'cd', 'end']);

      const stop = new AbortController();
      const cut = deltas(scripted(['abcd'], { stream: { delayMs: 1_000 } }), asked(0), stop.signal);
      const settled = cut.then(() => 'finished', (error: unknown) => error);
      await vi.advanceTimersByTimeAsync(500);
      stop.abort(new Error('stopped by the test'));
      await vi.advanceTimersByTimeAsync(0);
      expect(await settled).toEqual(new Error('stopped by the test'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('no delay by default: a stream of many pieces needs no timer', async () => {
    vi.useFakeTimers();
    try {
      const all = await deltas(scripted(['x'.repeat(40)], { stream: {} }), asked(0));
      expect(all).toHaveLength(11);
    } finally {
      vi.useRealTimers();
    }
  });
});
