/**
 * Chat Completions chunks (`stream: true`, `stream_options.include_usage`) as deltas: each
 * chunk's `choices[0].delta` gives text (`content`, or `refusal`) and tool calls by `index`
 * (the first chunk of a call carries its id and function name, later ones more of its
 * `arguments`), `finish_reason` the stop reason; the last chunk before `data: [DONE]` has no
 * choices and the usage. A stream that ends before `[DONE]` is a retryable cut; a chunk that
 * carries an `error` (as compatible servers send mid-stream) a typed model error. Deltas are
 * scrubbed with the adapter's redactor (model/scrub-deltas.ts) before they leave.
 */
import type { ModelDelta, StopReason } from '../core/model/types.js';
import { DeltaScrub } from '../core/model/scrub-deltas.js';
import { WINDOW } from '../core/secrets/scan.js';
import type { Redactor } from '../core/secrets/redactor.js';
import { errorDetail, providerError, scrubMessage } from '../adapters/errors.js';
import { parsedObject, type SseEvent } from '../adapters/sse.js';
import { responseDeltas } from '../core/model/response-deltas.js';
import { CHAT_STOP_REASONS, fromChatBody } from './response.js';

interface Chunk {
  choices?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: unknown;
}

interface ChunkChoice {
  finish_reason?: unknown;
  delta?: { content?: unknown; refusal?: unknown; tool_calls?: unknown } | null;
}

interface ChunkCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

export async function* chatDeltas(events: AsyncIterable<SseEvent>, provider: string, redactor: Redactor): AsyncGenerator<ModelDelta> {
  const scrub = new DeltaScrub((text) => redactor.text(text), WINDOW);
  let usage: { inputTokens: number; outputTokens: number } | undefined;
  let stop: StopReason | undefined;
  let refused = false;
  let calls = 0;
  for await (const { data: text, whole } of events) {
    if (whole === true) {
      // A whole answer where a stream was asked for (a server that ignores `stream`): read as generate reads it.
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw providerError('model.protocol', `${provider} answered with a body that is not JSON (${text.length} characters)`, { retryable: false, redactor });
      }
      yield* responseDeltas(fromChatBody(body, provider, redactor));
      return;
    }
    if (text.trim() === '[DONE]') {
      const end: ModelDelta = { type: 'end', stopReason: refused ? 'refused' : (stop ?? (calls > 0 ? 'tool_calls' : 'end')) };
      for (const piece of usage === undefined ? [end] : [{ type: 'usage', ...usage } as const, end]) yield* scrub.pass(piece);
      return;
    }
    const chunk = parsedObject(text) as Chunk | undefined;
    if (chunk === undefined) throw providerError('model.protocol', `${provider} streamed a chunk that is not JSON`, { retryable: false, redactor });
    if (chunk.error !== undefined && chunk.error !== null) {
      throw providerError('model.failed', `${provider} streamed an error: ${errorDetail(scrubMessage(text, redactor))}`, { retryable: false, redactor });
    }
    if (typeof chunk.usage?.prompt_tokens === 'number' && typeof chunk.usage.completion_tokens === 'number') {
      usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as ChunkChoice | undefined;
    if (typeof choice?.finish_reason === 'string') stop = CHAT_STOP_REASONS[choice.finish_reason];
    const delta = choice?.delta;
    if (typeof delta !== 'object' || delta === null) continue;
    if (typeof delta.content === 'string' && delta.content !== '') yield* scrub.pass({ type: 'text', text: delta.content });
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      refused = true;
      yield* scrub.pass({ type: 'text', text: delta.refusal });
    }
    const toolCalls: unknown[] = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    for (const [position, raw] of toolCalls.entries()) {
      const call = (raw ?? {}) as ChunkCall;
      const index = typeof call.index === 'number' ? call.index : position;
      calls = Math.max(calls, index + 1);
      const piece: { type: 'tool_call'; index: number; id?: string; name?: string; inputDelta?: string } = { type: 'tool_call', index };
      if (typeof call.id === 'string') piece.id = call.id;
      if (typeof call.function?.name === 'string') piece.name = call.function.name;
      if (typeof call.function?.arguments === 'string' && call.function.arguments !== '') piece.inputDelta = call.function.arguments;
      yield* scrub.pass(piece);
    }
  }
  throw providerError('model.failed', `${provider}'s stream ended before data: [DONE]`, { retryable: true, redactor });
}
