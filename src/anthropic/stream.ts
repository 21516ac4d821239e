/**
 * The Anthropic Messages API's streamed events as deltas: `message_start` (the input tokens),
 * `content_block_start` (a text block, or a tool_use block's id and name), `content_block_delta`
 * (`text_delta` text, `input_json_delta` partial JSON of the tool input), `message_delta` (the
 * stop reason, the output tokens so far), `message_stop` (the end), `ping` and `error`.
 * Block and delta types this adapter does not use (thinking, citations, server tools) are
 * skipped, as in whole answers (response.ts), and so are event types added later, as the API's
 * versioning policy asks. A stream that ends before `message_stop` is a retryable cut; an
 * `error` event a typed model error. Deltas are scrubbed with the adapter's redactor
 * (model/scrub-deltas.ts) before they leave.
 */
import type { ModelDelta, StopReason } from '../core/model/types.js';
import { DeltaScrub } from '../core/model/scrub-deltas.js';
import { WINDOW } from '../core/secrets/scan.js';
import type { Redactor } from '../core/secrets/redactor.js';
import { errorDetail, providerError, scrubMessage } from '../adapters/errors.js';
import { parsedObject, type SseEvent } from '../adapters/sse.js';
import { responseDeltas } from '../core/model/response-deltas.js';
import { ANTHROPIC_STOP_REASONS, fromAnthropicBody } from './response.js';

/** Error types the API documents as passing: overload, rate limits, its own failures. */
const RETRYABLE_ERRORS = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'timeout_error']);

interface Data {
  type?: unknown;
  index?: unknown;
  message?: { usage?: Usage | null } | null;
  content_block?: { type?: unknown; id?: unknown; name?: unknown; text?: unknown } | null;
  delta?: { type?: unknown; text?: unknown; partial_json?: unknown; stop_reason?: unknown } | null;
  usage?: Usage | null;
  error?: { type?: unknown; message?: unknown } | null;
}

interface Usage {
  input_tokens?: unknown;
  output_tokens?: unknown;
}

export async function* anthropicDeltas(events: AsyncIterable<SseEvent>, redactor: Redactor): AsyncGenerator<ModelDelta> {
  const scrub = new DeltaScrub((text) => redactor.text(text), WINDOW);
  const protocol = (message: string) => providerError('model.protocol', `anthropic streamed ${message}`, { retryable: false, redactor });
  /** Tool calls are numbered in their order among the blocks; the API numbers all blocks. */
  const calls = new Map<number, number>();
  let inputTokens = 0;
  let outputTokens: number | undefined;
  let stop: StopReason | undefined;
  for await (const { data: text, whole } of events) {
    const data = parsedObject(text) as Data | undefined;
    if (data === undefined) throw protocol('an event whose data is not JSON');
    if (whole === true) {
      // A whole answer where a stream was asked for: read as generate reads it, streamed from there.
      yield* responseDeltas(fromAnthropicBody(data, redactor));
      return;
    }
    const pieces: ModelDelta[] = [];
    switch (data.type) {
      case 'message_start': {
        const usage = data.message?.usage;
        if (typeof usage?.input_tokens === 'number') inputTokens = usage.input_tokens;
        if (typeof usage?.output_tokens === 'number') outputTokens = usage.output_tokens;
        break;
      }
      case 'content_block_start': {
        const block = data.content_block;
        if (block?.type === 'text' && typeof block.text === 'string' && block.text !== '') pieces.push({ type: 'text', text: block.text });
        if (block?.type === 'tool_use') {
          if (typeof data.index !== 'number' || typeof block.id !== 'string' || typeof block.name !== 'string') throw protocol('a tool_use block without an index, a string id and a name');
          calls.set(data.index, calls.size);
          pieces.push({ type: 'tool_call', index: calls.size - 1, id: block.id, name: block.name });
        }
        break;
      }
      case 'content_block_delta': {
        const delta = data.delta;
        if (delta?.type === 'text_delta' && typeof delta.text === 'string') pieces.push({ type: 'text', text: delta.text });
        if (delta?.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          const index = typeof data.index === 'number' ? calls.get(data.index) : undefined;
          if (index === undefined) throw protocol('input_json_delta for a block that is no tool_use');
          pieces.push({ type: 'tool_call', index, inputDelta: delta.partial_json });
        }
        break;
      }
      case 'message_delta': {
        const reason = data.delta?.stop_reason;
        if (typeof reason === 'string') stop = ANTHROPIC_STOP_REASONS[reason];
        // Cumulative counts: the latest is the answer's.
        if (typeof data.usage?.output_tokens === 'number') outputTokens = data.usage.output_tokens;
        if (typeof data.usage?.input_tokens === 'number') inputTokens = data.usage.input_tokens;
        break;
      }
      case 'message_stop': {
        if (outputTokens !== undefined) pieces.push({ type: 'usage', inputTokens, outputTokens });
        pieces.push({ type: 'end', stopReason: stop ?? (calls.size > 0 ? 'tool_calls' : 'end') });
        for (const piece of pieces) yield* scrub.pass(piece);
        return;
      }
      case 'error': {
        const type = typeof data.error?.type === 'string' ? data.error.type : 'error';
        // Scrubbed before it is cut, as an HTTP error's detail (post-json.ts).
        const detail = errorDetail(scrubMessage(text, redactor));
        throw providerError('model.failed', `anthropic streamed an error (${type}): ${detail}`, { retryable: RETRYABLE_ERRORS.has(type), redactor });
      }
    }
    for (const piece of pieces) yield* scrub.pass(piece);
  }
  throw providerError('model.failed', 'anthropic\'s stream ended before message_stop', { retryable: true, redactor });
}
