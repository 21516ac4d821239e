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
 * canonical JSON of the tuples sorted by name, put together from each tool's own text
 * (contract-text.ts): a sealed ToolDef's texts come from the contract memo, any other
 * tool's are written now.
 */
import { ConfigError } from '../errors.js';
import { compareCodeUnits } from '../tools/canonical-json.js';
import { quoteName } from '../tools/names.js';
import { sealedEntry, type SealedTool } from './contract-memo.js';
import { authorityTuple, authorityTupleText, contractTuple, contractTupleText, type ToolAuthority, type ToolContract } from './contract-text.js';

export { authorityTuple, contractTuple, type ToolAuthority, type ToolContract } from './contract-text.js';

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

const encoder = new TextEncoder();

/**
 * One scratch buffer for encoding long texts, up to SCRATCH_MAX_BYTES, grown to fit and then
 * kept. A toolset's canonical JSON runs to megabytes; a fresh buffer that size per hash is
 * external memory the garbage collector answers with a full collection of a heap the
 * toolset itself made large, which cost more than hashing it (measured: encode and digest of
 * 5 MB went from ~56 to ~26 ms of CPU). Reusing it is safe because `digest` copies its input
 * before it returns (WebCrypto: "a copy of the bytes held by the data parameter").
 */
let scratch: Uint8Array<ArrayBuffer> | undefined;
const SCRATCH_MIN_BYTES = 64 * 1024;
export const SCRATCH_MAX_BYTES = 8 * 1024 * 1024;

/** The UTF-8 bytes of `text`: a view of the scratch buffer for a long text, to be used at once. */
function utf8(text: string): Uint8Array<ArrayBuffer> {
  // UTF-8 takes at least one byte per UTF-16 unit; a text that cannot fit skips the scratch.
  if (text.length <= MEMO_MAX_CHARS || text.length > SCRATCH_MAX_BYTES) return encoder.encode(text);
  if (scratch === undefined || scratch.length < text.length) {
    let size = Math.max(SCRATCH_MIN_BYTES, scratch?.length ?? 0);
    while (size < text.length) size *= 2;
    scratch = new Uint8Array(Math.min(size, SCRATCH_MAX_BYTES));
  }
  const { read, written } = encoder.encodeInto(text, scratch);
  // Anything past ASCII may need more room than one byte a unit: encode it the plain way.
  return read === text.length ? scratch.subarray(0, written) : encoder.encode(text);
}

function hex(digest: ArrayBuffer): string {
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Bytes the scratch buffer holds now (for the test that it stays bounded). */
export function scratchBytes(): number {
  return scratch?.length ?? 0;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, via WebCrypto. */
export async function sha256Hex(text: string): Promise<string> {
  // Only short texts are kept, so only they are looked up: a lookup hashes the whole key,
  // which for a toolset's few megabytes is a pass over them for nothing.
  const known = text.length <= MEMO_MAX_CHARS ? recentDigests.get(text) : undefined;
  if (known !== undefined) return known;
  const digest = hex(await crypto.subtle.digest('SHA-256', utf8(text)));
  if (text.length <= MEMO_MAX_CHARS) {
    // Oldest first out: a Map iterates in insertion order.
    if (recentDigests.size >= MEMO_ENTRIES) recentDigests.delete(recentDigests.keys().next().value as string);
    recentDigests.set(text, digest);
  }
  return digest;
}

/** One tool's name and text, as one hash puts them together. */
export interface NamedText {
  readonly name: string;
  readonly text: string;
}

/** `[` + the texts in name order, joined by `,` + `]`: the canonical JSON of the array of tuples. */
function joinedInNameOrder(items: NamedText[]): string {
  // One join, not a string grown piece by piece: a rope of 10,000 pieces costs more to
  // flatten when it is encoded than the join does to copy.
  return `[${sortByName(items)
    .map(({ text }) => text)
    .join(',')}]`;
}

/**
 * A tool's contract text: a sealed ToolDef's from the memo, any other's written now from one
 * read of its tuple, whose name is the one returned (a getter is not asked twice).
 */
export function contractTextOf(tool: ToolContract): NamedText {
  const known = sealedEntry(tool);
  if (known !== undefined) return { name: known.tool.name, text: known.contract };
  const tuple = contractTuple(tool);
  return { name: tuple['name'] as string, text: contractTupleText(tuple) };
}

/** As contractTextOf, for the authority tuple. */
export function authorityTextOf(tool: ToolAuthority): NamedText {
  const known = sealedEntry(tool);
  if (known !== undefined) return { name: known.tool.name, text: known.authority };
  const tuple = authorityTuple(tool);
  return { name: tuple['name'] as string, text: authorityTupleText(tuple) };
}

export async function toolsetHash(tools: readonly ToolContract[]): Promise<string> {
  return sha256Hex(joinedInNameOrder(tools.map(contractTextOf)));
}

export async function authorityHash(tools: readonly ToolAuthority[]): Promise<string> {
  return sha256Hex(joinedInNameOrder(tools.map(authorityTextOf)));
}

/**
 * Both hashes of recent toolsets, by the serials of their records in resolve order. Records
 * never change and a serial is never reused, so the same serials in the same order are the
 * same texts, hence the same hashes: a spawn resolving the tools the last one did (the usual
 * case) digests nothing. Only serials are kept, never a record, so a toolset let go is not
 * held here; at most RECENT_TOOLSETS of them, the oldest dropped first.
 */
const recentToolsets = new Map<number, { readonly serials: readonly number[]; readonly toolsetHash: string; readonly authorityHash: string }>();
const RECENT_TOOLSETS = 16;

/** FNV-1a over the serials (each taken mod 2^32); a match is confirmed serial by serial. */
function serialsKey(entries: readonly SealedTool[]): number {
  let key = 0x811c9dc5;
  for (const { serial } of entries) key = Math.imul(key ^ serial, 0x01000193);
  return key;
}

/** Both hashes of sealed tools (resolve.ts): a recent toolset's, else from their memo texts, sorted once for both. */
export async function sealedToolsetHashes(entries: readonly SealedTool[]): Promise<{ readonly toolsetHash: string; readonly authorityHash: string }> {
  const key = serialsKey(entries);
  const known = recentToolsets.get(key);
  if (known !== undefined && known.serials.length === entries.length && entries.every((entry, i) => entry.serial === known.serials[i])) {
    return { toolsetHash: known.toolsetHash, authorityHash: known.authorityHash };
  }
  const sorted = sortByName(entries.map((entry) => ({ name: entry.tool.name, entry })));
  const [toolsetHash, authorityHash] = await Promise.all([
    sha256Hex(`[${sorted.map(({ entry }) => entry.contract).join(',')}]`),
    sha256Hex(`[${sorted.map(({ entry }) => entry.authority).join(',')}]`),
  ]);
  if (recentToolsets.size >= RECENT_TOOLSETS) recentToolsets.delete(recentToolsets.keys().next().value as number);
  recentToolsets.set(key, { serials: entries.map(({ serial }) => serial), toolsetHash, authorityHash });
  return { toolsetHash, authorityHash };
}
