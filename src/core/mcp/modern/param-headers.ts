/**
 * `x-mcp-header`: a tool's inputSchema may name arguments to be mirrored into
 * `Mcp-Param-{Name}` request headers, so that gateways can route on them without reading the
 * body. A tool whose annotations break the revision's rules is left out of the list (the
 * spec's MUST: one bad definition must not take the others down). The rules: on a property
 * reachable from the root through `properties` alone, never through `items`, composition,
 * conditionals or `$ref`; a non-empty HTTP token, unique without regard to case; on a
 * property of type string, integer or boolean.
 *
 * The walk is iterative and linear in the schema (a wire schema is JSON, so it has no cycles).
 */
import { isRecord } from '../../records.js';
import { ARRAY, MAP, SINGLE } from '../../schema/walk.js';

const ANNOTATION = 'x-mcp-header';
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/** One mirrored argument: the `properties` path to it, and the header name part. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly name: string;
}

/** The headers a tool's arguments are mirrored into, or why the tool must be left out. */
export type HeaderPlan = { readonly headers: readonly ParamHeader[] } | { readonly invalid: string };

export function planParamHeaders(inputSchema: unknown): HeaderPlan {
  const headers: ParamHeader[] = [];
  const seen = new Set<string>();
  // [node, path when reached through properties alone, else undefined]
  const pending: [unknown, string[] | undefined][] = [[inputSchema, []]];
  while (pending.length > 0) {
    const [node, path] = pending.pop() as [unknown, string[] | undefined];
    if (!isRecord(node)) continue;
    const name = node[ANNOTATION];
    if (name !== undefined) {
      const why =
        path === undefined || path.length === 0
          ? 'is not on a property reached through properties alone'
          : typeof name !== 'string' || !TOKEN.test(name)
            ? 'is not a non-empty HTTP token'
            : !PRIMITIVE.has(node['type'] as string)
              ? 'is not on a string, integer or boolean property'
              : seen.has(name.toLowerCase())
                ? 'repeats another'
                : undefined;
      if (why !== undefined) return { invalid: `its ${ANNOTATION} ${JSON.stringify(String(name).slice(0, 80))} ${why}` };
      seen.add((name as string).toLowerCase());
      headers.push({ path: path as string[], name: name as string });
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      const chain = key === 'properties' ? path : undefined;
      if (MAP.has(key) && isRecord(value)) for (const child of Object.keys(value)) pending.push([value[child], chain && [...chain, child]]);
      else if (key === 'items' || ARRAY.has(key) || SINGLE.has(key)) for (const child of Array.isArray(value) ? value : [value]) pending.push([child, undefined]);
    }
  }
  return { headers };
}

/** The `Mcp-Param-*` headers for one call's arguments: a value that is absent or null is omitted. */
export function paramHeaders(headers: readonly ParamHeader[], args: unknown): [string, string][] {
  const out: [string, string][] = [];
  for (const { path, name } of headers) {
    let value: unknown = args;
    for (const step of path) value = isRecord(value) && Object.hasOwn(value, step) ? value[step] : undefined;
    const text = typeof value === 'string' ? value : typeof value === 'boolean' || Number.isSafeInteger(value) ? String(value) : undefined;
    if (text !== undefined) out.push([`mcp-param-${name}`, headerValue(text)]);
  }
  return out;
}

/**
 * A value as the revision sends it in a header: as it is when it is printable ASCII without
 * surrounding white space, else (and when it looks like the sentinel itself) the base64 of its
 * UTF-8 between `=?base64?` and `?=`.
 */
export function headerValue(text: string): string {
  let plain = !/^\s|\s$/.test(text) && !(text.startsWith('=?base64?') && text.endsWith('?='));
  for (let i = 0; plain && i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    plain = code >= 0x20 && code <= 0x7e;
  }
  if (plain) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `=?base64?${btoa(binary)}?=`;
}
