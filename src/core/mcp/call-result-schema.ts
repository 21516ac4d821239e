/**
 * The shape a `tools/call` result must have. Deliberately looser than the SDK's
 * CallToolResultSchema in one place: content blocks of a type this code has never heard of
 * are kept (as typed parts, in order) instead of failing the whole result, so a server on a
 * newer protocol revision still reaches the model. Everything else is as strict as MCP:
 *
 *   the result      an object (not an array, not null)
 *   content         absent, or an array of objects each with a string `type`
 *   structured…     absent, or a plain object (not an array, not null)
 *   isError         absent, or a boolean
 *
 * It is a check, not a parse: one pass over the top level and the content list, nothing
 * copied. Parsing with zod object schemas copied every block and the structured value (and
 * walked each block's unknown keys), which cost about as much as the whole in-process round
 * trip. The value handed on is the one that arrived; results.ts copies what it keeps.
 *
 * Still a zod schema, since the SDK's `request` takes one: a failure is a ZodError with
 * issues, which wire-errors.ts sorts as "not valid MCP" like any other malformed result.
 */
import * as z from 'zod/v4';
import { isRecord } from '../records.js';

export interface ContentBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface LenientCallToolResult {
  /** Absent means no blocks (the SDK's schema defaults it to `[]`). */
  readonly content?: readonly ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

export const LenientCallToolResultSchema = z.custom<LenientCallToolResult>(isCallToolResult, {
  error: 'not a tools/call result: needs an object with an optional content array of typed blocks, an optional structuredContent object and an optional boolean isError',
});

export function isCallToolResult(value: unknown): value is LenientCallToolResult {
  if (!isRecord(value)) return false;
  const { content, structuredContent, isError } = value;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) return false;
  if (content === undefined) return true;
  if (!Array.isArray(content)) return false;
  for (const block of content as readonly unknown[]) {
    if (!isRecord(block) || typeof block['type'] !== 'string') return false;
  }
  return true;
}

/** What JSON makes of `{…}`; an in-process server could hand over a Map or a class instance. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
