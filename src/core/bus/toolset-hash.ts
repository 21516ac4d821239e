/**
 * Toolset identity (spec/runtime.md, "Resolving a toolset"). Two hashes, because two
 * different things can drift:
 *
 * - `toolsetHash` covers the contract a model is shown: `{ name, description, parameters,
 *   outputSchema?, version? }`. It enters an agent spawn's content key, so a server that
 *   changes a description or a schema re-keys new spawns instead of replaying a journal
 *   against a contract it was not written for.
 * - `authorityHash` covers what policy keys on: `{ name, needsApproval, risk? }`. A risk
 *   label loosened or an approval flag dropped leaves the contract untouched, and would be
 *   invisible in `toolsetHash`; here it shows.
 *
 * Each is the lowercase hex SHA-256 (WebCrypto, the same in every runtime) of the RFC 8785
 * canonical JSON of the tuples sorted by name. Absent fields are omitted, never `null`, so
 * an MCP tool (which has no `version`) hashes the same as a native tool without one.
 */
import { ConfigError } from '../errors.js';
import { canonicalJson, compareCodeUnits } from '../tools/canonical-json.js';
import { quoteName } from '../tools/names.js';
import type { ToolDef } from '../tools/types.js';

/** What `toolsetHash` reads from a tool; any ToolDef qualifies. */
export type ToolContract = Pick<ToolDef, 'name' | 'description' | 'parameters' | 'outputSchema' | 'version'>;

/** What `authorityHash` reads from a tool; any ToolDef qualifies. */
export type ToolAuthority = Pick<ToolDef, 'name' | 'needsApproval' | 'risk'>;

/**
 * The contract tuple of one tool. An absent field stays `undefined` here, and canonical JSON
 * omits such a member, which is what makes it absent from the hashed bytes (never `null`).
 */
export function contractTuple(tool: ToolContract): Record<string, unknown> {
  const { name, description, parameters, outputSchema, version } = tool;
  return { name, description, parameters, outputSchema, version };
}

/** The authority tuple of one tool; an absent `risk` is omitted as in contractTuple. */
export function authorityTuple(tool: ToolAuthority): Record<string, unknown> {
  const { name, needsApproval, risk } = tool;
  return { name, needsApproval, risk };
}

/**
 * Sorted by name with a code-unit comparison. Two tools with one name have no defined
 * order, which would make the hash depend on input order; a toolset cannot hold them
 * anyway, so they are refused here too rather than hashed ambiguously.
 */
export function sortByName<T extends { readonly name: string }>(tools: readonly T[]): T[] {
  const sorted = [...tools].sort((a, b) => compareCodeUnits(a.name, b.name));
  let previous: string | undefined;
  for (const { name } of sorted) {
    if (name === previous) throw new ConfigError('tool.duplicate_name', `cannot hash a toolset with two tools named ${quoteName(name)}`);
    previous = name;
  }
  return sorted;
}

/**
 * Recent digests by input. Every spawn resolves its toolset and keys itself again, so the
 * same contracts are hashed over and over; a digest is a trip to another thread in some
 * runtimes (~40 µs in Node even for a few bytes). Bounded in entries and in the length of
 * what it keeps, so it never holds more than about 2 MB of text.
 */
const recentDigests = new Map<string, string>();
const MEMO_ENTRIES = 32;
const MEMO_MAX_CHARS = 32 * 1024;

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, via WebCrypto. */
export async function sha256Hex(text: string): Promise<string> {
  const known = recentDigests.get(text);
  if (known !== undefined) return known;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  if (text.length <= MEMO_MAX_CHARS) {
    // Oldest first out: a Map iterates in insertion order.
    if (recentDigests.size >= MEMO_ENTRIES) recentDigests.delete(recentDigests.keys().next().value as string);
    recentDigests.set(text, hex);
  }
  return hex;
}

export async function toolsetHash(tools: readonly ToolContract[]): Promise<string> {
  return sha256Hex(canonicalJson(sortByName(tools).map(contractTuple)));
}

export async function authorityHash(tools: readonly ToolAuthority[]): Promise<string> {
  return sha256Hex(canonicalJson(sortByName(tools).map(authorityTuple)));
}
