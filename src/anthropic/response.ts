/**
 * An Anthropic Messages API response body as a provider-neutral ModelResponse. The body is
 * checked, not trusted: one that lacks a content array is `model.protocol`. Block types this
 * adapter does not use (thinking, server tools) are skipped; text blocks are joined.
 */
import type { ModelResponse, StopReason, ToolCallPart } from '../core/model/types.js';
import { providerError } from '../adapters/errors.js';
import type { Redactor } from '../core/secrets/redactor.js';

export const ANTHROPIC_STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  pause_turn: 'end',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refused',
};

interface Body {
  content?: unknown;
  stop_reason?: unknown;
  usage?: { input_tokens?: unknown; output_tokens?: unknown } | null;
}

export function fromAnthropicBody(value: unknown, redactor: Redactor): ModelResponse {
  const body = (typeof value === 'object' && value !== null ? value : {}) as Body;
  if (!Array.isArray(body.content)) {
    throw providerError('model.protocol', 'anthropic answered a body without a content array', { retryable: false, redactor });
  }
  let text = '';
  const toolCalls: ToolCallPart[] = [];
  for (const raw of body.content as unknown[]) {
    const block = (raw ?? {}) as { type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown };
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') {
        throw providerError('model.protocol', 'anthropic answered a tool_use block without a string id and name', { retryable: false, redactor });
      }
      toolCalls.push({ id: block.id, name: block.name, input: block.input ?? {} });
    }
  }
  const reason = typeof body.stop_reason === 'string' ? ANTHROPIC_STOP_REASONS[body.stop_reason] : undefined;
  const usage = body.usage;
  // Every string kept (text, refusal, tool-call ids, names and inputs at any depth, their keys)
  // is scrubbed: a proxy or a model may quote the request's headers in a 200 answer too.
  return redactor.value({
    text,
    toolCalls,
    stopReason: reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'end'),
    ...(typeof usage?.input_tokens === 'number' && typeof usage.output_tokens === 'number'
      ? { usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } }
      : {}),
  });
}
