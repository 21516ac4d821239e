/**
 * The provider-neutral request as AI SDK call options (the `LanguageModelV3/V4CallOptions`
 * subset both versions share, word for word): the system text as a system message, user text
 * as a text part, an assistant turn as its text and `tool-call` parts, tool results as
 * `tool-result` parts whose output says whether the call failed, and each ToolSpec as a
 * function tool with its JSON Schema as `inputSchema`.
 */
import type { Message, ModelRequest, ToolSpec } from '../core/model/types.js';
import type { JsonSchema, ToolResult } from '../core/tools/types.js';

type TextPart = { type: 'text'; text: string };
type ToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };
type ToolOutput = { type: 'text' | 'error-text'; value: string } | { type: 'json' | 'error-json'; value: JsonOutput };
type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolOutput };
/** A JSON value as the AI SDK's `JSONValue` declares it (its objects hold no `undefined`). */
type JsonOutput = null | string | number | boolean | { [key: string]: JsonOutput } | JsonOutput[];

export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: TextPart[] }
  | { role: 'assistant'; content: (TextPart | ToolCallPart)[] }
  | { role: 'tool'; content: ToolResultPart[] };

export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What this adapter passes to `doGenerate` and `doStream`. */
export interface CallOptions {
  prompt: PromptMessage[];
  tools?: FunctionTool[];
  toolChoice?: { type: 'auto' };
  abortSignal: AbortSignal;
}

export function toCallOptions(request: ModelRequest, abortSignal: AbortSignal): CallOptions {
  const system: PromptMessage[] = request.system === undefined || request.system === '' ? [] : [{ role: 'system', content: request.system }];
  const prompt = [...system, ...request.messages.map(toMessage)];
  // Some providers refuse an empty tools list, and a tool choice without tools.
  if (request.tools.length === 0) return { prompt, abortSignal };
  return { prompt, tools: request.tools.map(toTool), toolChoice: { type: 'auto' }, abortSignal };
}

function toMessage(message: Message): PromptMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.text }] };
    case 'assistant': {
      const calls = message.toolCalls.map((call): ToolCallPart => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input ?? {} }));
      // An empty assistant turn still says something: several providers refuse empty content.
      const text: TextPart[] = message.text !== '' || calls.length === 0 ? [{ type: 'text', text: message.text }] : [];
      return { role: 'assistant', content: [...text, ...calls] };
    }
    case 'tool':
      return { role: 'tool', content: message.results.map(toResult) };
  }
}

function toResult(result: ToolResult): ToolResultPart {
  return { type: 'tool-result', toolCallId: result.callId, toolName: result.toolName, output: toOutput(result) };
}

/** Strings as text, anything else as JSON; an error result as the `error-` kind, which providers mark as failed. */
function toOutput(result: ToolResult): ToolOutput {
  const { output, isError } = result;
  if (typeof output === 'string') return { type: isError ? 'error-text' : 'text', value: output };
  if (output === undefined) return { type: isError ? 'error-text' : 'text', value: '' };
  const json = jsonCopy(output);
  if (json === undefined) return { type: isError ? 'error-text' : 'text', value: String(output) };
  return { type: isError ? 'error-json' : 'json', value: json };
}

/** A JSON copy (results are journaled JSON already; this guards a host's hand-built history). */
function jsonCopy(value: unknown): JsonOutput | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonOutput);
  } catch {
    return undefined;
  }
}

function toTool(spec: ToolSpec): FunctionTool {
  return { type: 'function', name: spec.name, description: spec.description, inputSchema: objectSchema(spec.parameters) };
}

/** JSON Schema allows `true` and `false` as schemas; the AI SDK's `JSONSchema7` is an object. */
function objectSchema(schema: JsonSchema): Record<string, unknown> {
  if (schema === true) return { type: 'object' };
  if (schema === false) return { not: {} };
  return schema as Record<string, unknown>;
}
