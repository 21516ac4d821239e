/**
 * The provider-neutral request as an OpenAI Chat Completions body (POST /chat/completions):
 * the system text as the first message, tool results as `role: 'tool'` messages carrying
 * `tool_call_id`, tool specs as functions with their JSON Schema as `parameters`.
 */
import type { Message, ModelRequest } from '../core/model/types.js';
import { argumentsText, toolOutputText } from '../adapters/tool-output.js';

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: unknown } }[];
}

export function toChatBody(request: ModelRequest): ChatBody {
  const system: ChatMessage[] = request.system === undefined || request.system === '' ? [] : [{ role: 'system', content: request.system }];
  return {
    model: request.model,
    messages: [...system, ...request.messages.flatMap(toMessages)],
    // Several compatible servers refuse an empty tools array; absent means no tools.
    ...(request.tools.length === 0
      ? {}
      : { tools: request.tools.map((spec) => ({ type: 'function' as const, function: { name: spec.name, description: spec.description, parameters: spec.parameters } })) }),
  };
}

function toMessages(message: Message): ChatMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }];
    case 'assistant':
      if (message.toolCalls.length === 0) return [{ role: 'assistant', content: message.text }];
      return [
        {
          role: 'assistant',
          content: message.text === '' ? null : message.text,
          tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: argumentsText(call.input) } })),
        },
      ];
    case 'tool':
      // The wire has no error flag for a tool message; an error result's output says what failed.
      return message.results.map((result) => ({ role: 'tool', tool_call_id: result.callId, content: toolOutputText(result) }));
  }
}
