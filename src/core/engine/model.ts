/**
 * The engine's side of the model contract (model/types.ts): routing `'adapterId:model'` to an
 * adapter, checking what it answered, and telling retryable failures from the rest.
 */
import { ConfigError, RulvarError, describeCause, withSafeCause } from '../errors.js';
import { ownJson } from '../journal/json-safe.js';
import type { ModelAdapter, ModelResponse, StopReason, ToolCallPart } from '../model/types.js';

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
 * What comes back is the engine's own frozen JSON (journal/json-safe.ts), built in the same walk: the
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
    if (input === undefined) return Object.freeze({ id, name } as ToolCallPart);
    if (nestsDeeperThan(input, MAX_INPUT_DEPTH)) throw fail(`tool call ${i} whose input nests deeper than ${MAX_INPUT_DEPTH} levels`);
    let own: unknown;
    try {
      own = ownJson(input);
    } catch (error) {
      // A cycle, a BigInt, or nesting deeper than the stack (the JSON round trip's RangeError).
      throw fail(`tool call ${i} whose input JSON cannot hold (${describeCause(error)})`);
    }
    return Object.freeze({ id, name, input: own } as ToolCallPart);
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

/**
 * How deep a tool call's input may nest. Without a bound of its own the limit was each
 * runtime's stack: Node's JSON round trip gave up near 5,000 levels, Chromium's took 100,000.
 * No real tool's arguments come near it.
 */
export const MAX_INPUT_DEPTH = 512;

/** Walked with a stack of its own, so any depth is measured without recursion. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [member, depth] = next;
    if (typeof member !== 'object' || member === null) continue;
    if (depth >= max) return true;
    if (Array.isArray(member)) for (const item of member as unknown[]) pending.push([item, depth + 1]);
    else for (const key in member) pending.push([(member as Record<string, unknown>)[key], depth + 1]);
  }
  return false;
}

/** True when an adapter marked the error as worth another try (rate limits, overload). */
export function isRetryable(error: unknown): boolean {
  try {
    return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
  } catch {
    // A getter or proxy trap that throws marks nothing: such a failure is not tried again.
    return false;
  }
}

export function modelFailed(adapterId: string, model: string, cause: unknown, clean: (text: string) => string = (text) => text): RulvarError {
  // Only the cause's name, code and message are kept (a provider error object may hold the
  // request, headers included); the built-in adapters keep keys out of their messages, and
  // `clean` (the adapter's declared redact) scrubs what a custom adapter's error quotes.
  const copy = harmlessCopy(cause);
  const error = new RulvarError('model.failed', `model ${adapterId}:${model} failed: ${copy.message}`, { cause: copy });
  return withSafeCause(error, clean);
}

/**
 * What an adapter threw, as a plain Error of its name, code and message, each read once
 * under a guard: a getter, a proxy trap or a `toString` that throws leaves the failure a
 * `model.failed` like any other, instead of escaping as the workflow's own error.
 */
function harmlessCopy(cause: unknown): Error {
  const copy = new Error(describeCause(cause));
  try {
    const name: unknown = cause instanceof Error ? cause.name : undefined;
    if (typeof name === 'string') copy.name = name;
    const code: unknown = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    if (typeof code === 'number' || typeof code === 'string') Object.assign(copy, { code });
  } catch {
    // Whatever could not be read stays out.
  }
  return copy;
}
