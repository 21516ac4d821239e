/**
 * An AI SDK finish reason and usage as the provider-neutral ones; both answer shapes
 * (`doGenerate`'s result and a stream's `finish` part) carry them alike in v3 and v4: the
 * finish reason as `{ unified, raw }`, the usage as `{ inputTokens: { total }, outputTokens:
 * { total } }`.
 */
import type { StopReason } from '../core/model/types.js';

/** `error` and `interrupted` (v4: the stream ended without a completion signal) are no answer. */
export type Finish = { readonly stopReason: StopReason } | { readonly incomplete: string };

/** The finish reasons that say something an answer's calls do not: the rest follow the calls. */
const KEPT: Readonly<Record<string, StopReason>> = { length: 'max_tokens', 'content-filter': 'refused' };

/**
 * The stop reason of an answer with `toolCalls` calls. `stop`, `tool-calls`, `other` and
 * whatever a later version adds read as the calls say (a provider may say `stop` after calls,
 * or `tool-calls` after none); a length or filter stop is kept whatever the answer holds.
 */
export function finishOf(reason: unknown, toolCalls: number): Finish {
  const unified = typeof reason === 'object' && reason !== null ? (reason as { unified?: unknown }).unified : undefined;
  if (unified === 'error' || unified === 'interrupted') return { incomplete: unified };
  const kept = typeof unified === 'string' && Object.hasOwn(KEPT, unified) ? KEPT[unified] : undefined;
  return { stopReason: kept ?? (toolCalls > 0 ? 'tool_calls' : 'end') };
}

/** Token counts when the provider gave both totals as numbers; else none (usage is optional). */
export function usageOf(usage: unknown): { inputTokens: number; outputTokens: number } | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
  const input = totalOf(inputTokens);
  const output = totalOf(outputTokens);
  return input === undefined || output === undefined ? undefined : { inputTokens: input, outputTokens: output };
}

function totalOf(count: unknown): number | undefined {
  const total = typeof count === 'object' && count !== null ? (count as { total?: unknown }).total : undefined;
  return typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : undefined;
}
