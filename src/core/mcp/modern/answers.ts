/**
 * The shapes of 2026-07-28 answers this client reads, checked the way call-result-schema.ts
 * checks a call result: one pass of property checks, nothing copied. Looser than the SDK's
 * 2025 schemas where the revision is: an `outputSchema` may be any JSON Schema, and a
 * property's subschema may be a boolean. Every result carries `resultType`; absent means
 * "complete" (a server of an earlier revision), and a value this client does not know is
 * invalid, as the revision says.
 *
 * Still zod schemas, since the SDK's `request` takes one: a failure is a ZodError, which
 * wire-errors.ts sorts as "not valid MCP" like any other malformed result.
 */
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { isRecord } from '../../records.js';

const RESULT_TYPES = new Set(['complete', 'input_required']);

export interface DiscoverResult {
  readonly supportedVersions: readonly string[];
  readonly capabilities: { readonly tools?: { readonly listChanged?: boolean } };
}

export const DiscoverResultSchema = z.custom<DiscoverResult>(
  (value) =>
    completes(value) &&
    Array.isArray(value['supportedVersions']) &&
    (value['supportedVersions'] as unknown[]).every((v) => typeof v === 'string') &&
    isRecord(value['capabilities']),
  { error: 'not a server/discover result: needs supportedVersions (strings) and capabilities' },
);

/** A tools/list page: a `tools` array of tools each with a string name and an object inputSchema. */
export const ModernListSchema = z.custom<ListToolsResult & { readonly ttlMs?: unknown }>(
  (value) =>
    completes(value) &&
    Array.isArray(value['tools']) &&
    (value['tools'] as unknown[]).every(
      (tool) =>
        isRecord(tool) &&
        typeof tool['name'] === 'string' &&
        isRecord(tool['inputSchema']) &&
        (tool['outputSchema'] === undefined || isRecord(tool['outputSchema'])) &&
        (tool['description'] === undefined || typeof tool['description'] === 'string') &&
        (tool['title'] === undefined || typeof tool['title'] === 'string'),
    ) &&
    (value['nextCursor'] === undefined || typeof value['nextCursor'] === 'string'),
  { error: 'not a tools/list result: needs a tools array of named tools with object schemas' },
);

/** A result whose resultType is "complete" (or absent), the only kind a list or discover may be. */
function completes(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && (value['resultType'] === undefined || value['resultType'] === 'complete');
}

/** Whether a call result's resultType is one this client knows (absent is "complete"). */
export function knownResultType(value: Record<string, unknown>): boolean {
  const type = value['resultType'];
  return type === undefined || (typeof type === 'string' && RESULT_TYPES.has(type));
}

/**
 * How long a page may be served from the cache, in ms: its `ttlMs` when that is a positive
 * number (a negative one counts as 0, as the revision says), else 0 ("stale at once"; only
 * servers of earlier revisions leave it out), and never more than a day: a server cannot pin
 * a list for longer than that without a notification path the host can see.
 */
export function freshFor(page: { readonly ttlMs?: unknown }): number {
  const ttl = page.ttlMs;
  return typeof ttl === 'number' && ttl > 0 ? Math.min(ttl, MAX_TTL_MS) : 0;
}

export const MAX_TTL_MS = 86_400_000;
