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
import { canonicalForm, canonicalJson, compareCodeUnits, NO_FORM, stringifyIsCanonical } from '../tools/canonical-json.js';
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

export async function toolsetHash(tools: readonly ToolContract[]): Promise<string> {
  return toolsetHashWithForms(tools, []);
}

/** Canonical-order copies of a tool's schemas, made by admission just now (admitted-tools.ts). */
export interface SchemaForms {
  readonly parameters: object | undefined;
  readonly outputSchema: object | undefined;
}

/**
 * toolsetHash, with `forms[i]` (when given) holding admission's canonical-order copies of
 * `tools[i]`'s schemas, made in the same synchronous stretch (resolve.ts): they are written
 * as they are instead of being copied again. Everything else is copied here, as canonicalJson
 * would; whatever has no fast form takes canonicalJson's iterative walk as a whole.
 */
export async function toolsetHashWithForms(tools: readonly ToolContract[], forms: readonly (SchemaForms | undefined)[]): Promise<string> {
  const order = sortByName(tools.map((tool, index) => ({ name: tool.name, index })));
  const whole = () => sha256Hex(canonicalJson(order.map(({ index }) => contractTuple(tools[index] as ToolContract))));
  if (!stringifyIsCanonical()) return whole();
  const tuples: unknown[] = [];
  for (const { index } of order) {
    const tuple = contractForm(tools[index] as ToolContract, forms[index]);
    if (tuple === NO_FORM) return whole();
    tuples.push(tuple);
  }
  return sha256Hex(JSON.stringify(tuples));
}

/** One contract tuple as a canonical form: members in code-unit order, absent ones left out. */
function contractForm(tool: ToolContract, forms: SchemaForms | undefined): unknown {
  const { name, description, parameters, outputSchema, version } = tool;
  if (typeof name !== 'string' || typeof description !== 'string' || (version !== undefined && typeof version !== 'string')) return NO_FORM;
  const input = forms?.parameters ?? canonicalForm(parameters);
  const output = outputSchema === undefined ? undefined : (forms?.outputSchema ?? canonicalForm(outputSchema));
  if (input === NO_FORM || output === NO_FORM || input === undefined) return NO_FORM;
  // Written in this order: description < name < outputSchema < parameters < version.
  const form: Record<string, unknown> = { description, name };
  if (output !== undefined) form['outputSchema'] = output;
  form['parameters'] = input;
  if (version !== undefined) form['version'] = version;
  return form;
}

export async function authorityHash(tools: readonly ToolAuthority[]): Promise<string> {
  return sha256Hex(canonicalJson(sortByName(tools).map(authorityTuple)));
}
