/** What the AI SDK adapter's tests share: requests, answers in both versions' shapes, and a delta assembler. */
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../../src/core/index.js';

export const live = (): AbortSignal => new AbortController().signal;

export const HELLO: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };

/**
 * A v3/v4 `doGenerate` result. Typed `never` as the stream below, so that the mocks take it:
 * many answers in these tests are malformed on purpose.
 */
export function generated(content: unknown[], unified = 'stop', usage: unknown = { inputTokens: { total: 3 }, outputTokens: { total: 5 } }): never {
  return { content, finishReason: { unified, raw: unified }, usage, warnings: [] } as never;
}

export function usage(input: number, output: number) {
  return { inputTokens: { total: input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: output, text: undefined, reasoning: undefined } };
}

/** A stream result over `parts`, as a provider's `doStream` answers. */
export function streamed(parts: unknown[]): never {
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  } as never;
}

export function finish(unified = 'stop', counts: unknown = usage(3, 5)) {
  return { type: 'finish', finishReason: { unified, raw: unified }, usage: counts };
}

export async function collect(adapter: ModelAdapter, request: ModelRequest = HELLO, signal: AbortSignal = live()): Promise<ModelDelta[]> {
  const deltas: ModelDelta[] = [];
  if (adapter.stream === undefined) throw new Error('the adapter does not stream');
  for await (const delta of adapter.stream(request, signal)) deltas.push(delta);
  return deltas;
}

/** The ModelResponse the streaming contract (model/types.ts) says `deltas` make. */
export function assemble(deltas: readonly ModelDelta[]): ModelResponse {
  let text = '';
  const calls: { id: string; name: string; input: string }[] = [];
  let stopReason: ModelResponse['stopReason'] | undefined;
  let counts: ModelResponse['usage'];
  for (const delta of deltas) {
    if (delta.type === 'text') text += delta.text;
    else if (delta.type === 'tool_call') {
      const call = (calls[delta.index] ??= { id: '', name: '', input: '' });
      if (delta.id !== undefined) call.id = delta.id;
      if (delta.name !== undefined) call.name = delta.name;
      call.input += delta.inputDelta ?? '';
    } else if (delta.type === 'usage') counts = { inputTokens: delta.inputTokens, outputTokens: delta.outputTokens };
    else stopReason = delta.stopReason;
  }
  if (stopReason === undefined) throw new Error('no end delta');
  const toolCalls = calls.map((call) => ({ id: call.id, name: call.name, input: call.input === '' ? {} : (JSON.parse(call.input) as unknown) }));
  return { text, toolCalls, stopReason, ...(counts === undefined ? {} : { usage: counts }) };
}
