/**
 * The provider-neutral model contract (spec/runtime.md, "Models"): what an adapter is given and
 * what it answers. An adapter turns one request into one response; the engine owns history,
 * tools and retries around it. Types only, below the journal (which records responses) and the
 * engine (which checks them).
 */
import type { JsonSchema, ToolResult } from '../tools/types.js';

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
  /**
   * How the adapter declares its secrets (an API key, header values) without exposing them:
   * given a string, the string with every secret replaced. The engine passes every string of
   * each answer through it (text, tool-call ids and names, every string and key of an input)
   * before checking and journaling the answer, so what a provider echoes never reaches the
   * journal, the history, an event or the run's value. `secretRedactor(secrets)` builds one
   * that finds secrets in every form the built-in adapters do, and those declare one made
   * the same way. Every tool result passes through the `redact` of every adapter too.
   */
  redact?(text: string): string;
  /**
   * The same answer as `generate`, in pieces as the provider sends them. When present the
   * engine streams each live turn (and emits its pieces as `turn:delta`), assembles the pieces
   * into one `ModelResponse` and journals only that, checked as a `generate` answer is; an
   * iteration that ends without an `end` delta is a cut stream, a retryable model error.
   */
  stream?(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelDelta>;
}

/**
 * One piece of a streamed answer. Tool calls arrive by `index` (their order in the answer):
 * the first delta of an index carries its `id` and `name`, later ones more of its input as JSON
 * text, concatenated in order.
 */
export type ModelDelta =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_call'; readonly index: number; readonly id?: string; readonly name?: string; readonly inputDelta?: string }
  | { readonly type: 'usage'; readonly inputTokens: number; readonly outputTokens: number }
  | { readonly type: 'end'; readonly stopReason: ModelResponse['stopReason'] };
