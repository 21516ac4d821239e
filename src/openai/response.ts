/**
 * An OpenAI Chat Completions response body as a provider-neutral ModelResponse. The first
 * choice is the answer. Tool-call arguments arrive as a JSON string; a string that does not
 * parse is passed on as the raw string, so the engine's schema check refuses it with
 * `invalid_input` and the model sees why on its next turn instead of the run crashing.
 */
import type { ModelResponse, StopReason, ToolCallPart } from '../core/model/types.js';
import { providerError } from '../adapters/errors.js';
import type { Redactor } from '../core/secrets/redactor.js';

export const CHAT_STOP_REASONS: Record<string, StopReason> = {
  stop: 'end',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
  content_filter: 'refused',
};

interface Body {
  choices?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
}

interface Choice {
  finish_reason?: unknown;
  message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown } | null;
}

export function fromChatBody(value: unknown, provider: string, redactor: Redactor): ModelResponse {
  const body = (typeof value === 'object' && value !== null ? value : {}) as Body;
  const choice = (Array.isArray(body.choices) ? body.choices[0] : undefined) as Choice | undefined;
  const message = choice?.message;
  if (typeof message !== 'object' || message === null) {
    throw providerError('model.protocol', `${provider} answered a body without choices[0].message`, { retryable: false, redactor });
  }
  const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((raw: unknown): ToolCallPart => {
    const call = (raw ?? {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } | null };
    if (typeof call.id !== 'string' || typeof call.function?.name !== 'string') {
      throw providerError('model.protocol', `${provider} answered a tool call without a string id and function name`, { retryable: false, redactor });
    }
    return { id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) };
  });
  const refusal = typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
  const text = typeof message.content === 'string' ? message.content : (refusal ?? '');
  const mapped = typeof choice?.finish_reason === 'string' ? CHAT_STOP_REASONS[choice.finish_reason] : undefined;
  const usage = body.usage;
  // Every string kept (text, refusal, tool-call ids, names and inputs at any depth, their keys)
  // is scrubbed: a proxy or a model may quote the request's headers in a 200 answer too.
  return redactor.value({
    text,
    toolCalls,
    stopReason: refusal !== undefined ? 'refused' : (mapped ?? (toolCalls.length > 0 ? 'tool_calls' : 'end')),
    ...(typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
      ? { usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } }
      : {}),
  });
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  // Models with no arguments to give sometimes send an empty string for `{}`.
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
