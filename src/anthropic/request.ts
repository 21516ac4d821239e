/**
 * The provider-neutral request as an Anthropic Messages API body (POST /v1/messages): the
 * system text as `system`, tool results as user-role `tool_result` blocks, tool specs with
 * their JSON Schema as `input_schema`.
 */
import type { Message, ModelRequest } from '../core/model/types.js';
import { toolOutputText } from '../adapters/tool-output.js';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface AnthropicBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: { name: string; description: string; input_schema: unknown }[];
}

export function toAnthropicBody(request: ModelRequest, maxTokens: number): AnthropicBody {
  return {
    model: request.model,
    max_tokens: maxTokens,
    ...(request.system === undefined || request.system === '' ? {} : { system: request.system }),
    messages: request.messages.map(toMessage),
    // An empty tools array is refused by some API versions; absent means no tools.
    ...(request.tools.length === 0
      ? {}
      : { tools: request.tools.map((spec) => ({ name: spec.name, description: spec.description, input_schema: spec.parameters })) }),
  };
}

function toMessage(message: Message): AnthropicMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.text }] };
    case 'assistant': {
      const calls: Block[] = message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.input) }));
      // The API refuses empty text blocks, so a tool-only turn carries only its tool_use blocks.
      const text: Block[] = message.text === '' && calls.length > 0 ? [] : [{ type: 'text', text: message.text }];
      return { role: 'assistant', content: [...text, ...calls] };
    }
    case 'tool':
      return {
        role: 'user',
        content: message.results.map((result) => ({ type: 'tool_result', tool_use_id: result.callId, content: toolOutputText(result), is_error: result.isError })),
      };
  }
}

/** `tool_use.input` must be an object; a history built elsewhere may hold anything. */
function toolInput(input: unknown): unknown {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { value: input };
}
