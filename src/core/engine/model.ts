/**
 * The provider-neutral model contract (spec/runtime.md, "Models"). An adapter turns one
 * request into one response; the engine owns history, tools and retries around it.
 */
import { ConfigError, RulvarError, describeCause, withSafeCause } from '../errors.js';
import type { JsonSchema, ToolResult } from '../tools/types.js';
import { ownJson } from './json-safe.js';

export interface ToolCallPart {
  id: string;
  name: string;
  input: unknown;
}

export type Message =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCallPart[] }
  | { role: 'tool'; results: ToolResult[] };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ModelRequest {
  model: string;
  system?: string;
  messages: Message[];
  tools: ToolSpec[];
}

export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'refused';

export interface ModelResponse {
  text: string;
  toolCalls: ToolCallPart[];
  stopReason: StopReason;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ModelAdapter {
  readonly id: string;
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** `'adapterId:model'` split at the first colon, the adapter looked up; refused before any call. */
export function routeModel(ref: string, adapters: ReadonlyMap<string, ModelAdapter>): { adapter: ModelAdapter; model: string } {
  const colon = ref.indexOf(':');
  if (colon <= 0) {
    throw new ConfigError('config.invalid_value', `model ${JSON.stringify(ref)} is not of the form 'adapterId:model'`);
  }
  const id = ref.slice(0, colon);
  const adapter = adapters.get(id);
  if (adapter === undefined) {
    const known = [...adapters.keys()].join(', ') || 'none';
    throw new ConfigError('model.unknown_adapter', `no model adapter has id ${JSON.stringify(id)} (adapters: ${known})`);
  }
  return { adapter, model: ref.slice(colon + 1) };
}

/**
 * What an adapter answered, checked: a response is data from outside (a provider, a proxy, a
 * user's script), so a malformed one fails the agent typed instead of corrupting its history.
 * What comes back is the engine's own frozen JSON (json-safe.ts), built in the same walk: the
 * journal and the history keep it as it is, and nothing the adapter does later reaches it.
 */
export function checkResponse(value: unknown): ModelResponse {
  const response = value as Partial<ModelResponse> | null;
  const fail = (what: string) => new TypeError(`the adapter returned ${what}`);
  if (typeof response !== 'object' || response === null) throw fail('no response object');
  if (typeof response.text !== 'string') throw fail('a response without a string text');
  if (!Array.isArray(response.toolCalls)) throw fail('a response without a toolCalls array');
  const toolCalls = response.toolCalls.map((call: unknown, i): ToolCallPart => {
    const part = call as Partial<ToolCallPart> | null;
    if (typeof part !== 'object' || part === null || typeof part.id !== 'string' || typeof part.name !== 'string') {
      throw fail(`tool call ${i} without a string id and name`);
    }
    // An undefined input is left out, as JSON (and so every durable journal) leaves it out.
    const { id, name, input } = part;
    return Object.freeze(input === undefined ? ({ id, name } as ToolCallPart) : { id, name, input: ownJson(input) });
  });
  const stopReason = STOP_REASONS.has(response.stopReason as StopReason) ? (response.stopReason as StopReason) : toolCalls.length > 0 ? 'tool_calls' : 'end';
  const usage = response.usage;
  const counted = usage !== undefined && Number.isFinite(usage?.inputTokens) && Number.isFinite(usage.outputTokens);
  const { text } = response;
  const calls = Object.freeze(toolCalls) as ToolCallPart[];
  // Two literals rather than a spread of an optional member: this runs once per model turn,
  // and V8 builds a spread object the slow way.
  if (!counted) return Object.freeze({ text, toolCalls: calls, stopReason });
  // `+ 0` turns a -0 into the 0 JSON would write.
  const counts = Object.freeze({ inputTokens: usage.inputTokens + 0, outputTokens: usage.outputTokens + 0 });
  return Object.freeze({ text, toolCalls: calls, stopReason, usage: counts });
}

const STOP_REASONS = new Set<StopReason>(['end', 'tool_calls', 'max_tokens', 'refused']);

/** True when an adapter marked the error as worth another try (rate limits, overload). */
export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

export function modelFailed(adapterId: string, model: string, cause: unknown): RulvarError {
  // Only the cause's name, code and message are kept (a provider error object may hold the
  // request, headers included); adapters keep keys out of their messages.
  const error = new RulvarError('model.failed', `model ${adapterId}:${model} failed: ${describeCause(cause)}`, { cause });
  return withSafeCause(error, (text) => text);
}
