/**
 * Toolset attestations: a pin a host records once (`attestToolset`) and declares on a
 * profile, so that a spawn whose toolset drifted is refused, typed, before any model call
 * (spec/runtime.md). A changed toolsetHash alone only re-keys; the attestation is how a host
 * says "refuse instead".
 *
 * The pin is plain JSON (store it in config, commit it). Besides the two toolset hashes it
 * holds a contract hash and an authority hash per tool, so a mismatch names which tools
 * changed (and whether their contract or their policy surface did), which are missing and
 * which are unexpected, instead of just "the hash differs".
 *
 * Both functions are async, where spec/runtime.md sketches `attestToolset` as synchronous:
 * the per-tool hashes are SHA-256 via WebCrypto, whose digest is asynchronous in every
 * runtime, and a second, synchronous SHA-256 implementation is not worth carrying.
 */
import { ConfigError } from '../errors.js';
import { quoteName } from '../tools/names.js';
import {
  authorityTextOf,
  contractTextOf,
  sha256Hex,
  sortByName,
  type ToolAuthority,
  type ToolContract,
} from './toolset-hash.js';

export const ATTESTATION_FORMAT = 'rulvar.toolset-attestation/1';

export interface AttestedTool {
  readonly name: string;
  readonly contractHash: string;
  readonly authorityHash: string;
}

export interface ToolsetAttestation {
  readonly format: typeof ATTESTATION_FORMAT;
  readonly toolsetHash: string;
  readonly authorityHash: string;
  /** Sorted by name. */
  readonly tools: readonly AttestedTool[];
}

/** What attestation reads from a resolved toolset (a ResolvedToolset qualifies). */
export interface AttestableToolset {
  readonly tools: ReadonlyArray<ToolContract & ToolAuthority>;
  readonly toolsetHash: string;
  readonly authorityHash: string;
}

export interface ChangedTool {
  readonly name: string;
  readonly contract: boolean;
  readonly authority: boolean;
}

/** `toolset.attestation_mismatch`, with the differences as data for hosts and events. */
export class ToolsetAttestationError extends ConfigError {
  readonly changed: readonly ChangedTool[];
  readonly missing: readonly string[];
  readonly unexpected: readonly string[];

  constructor(changed: readonly ChangedTool[], missing: readonly string[], unexpected: readonly string[]) {
    // At most 20 names per list: a message stays readable when a whole server drifted.
    const list = (items: readonly string[]): string =>
      items.slice(0, 20).join(', ') + (items.length > 20 ? ` and ${items.length - 20} more` : '');
    const aspects = (c: ChangedTool): string =>
      [c.contract ? 'contract' : '', c.authority ? 'authority' : ''].filter((a) => a !== '').join(', ');
    const parts = [
      changed.length === 0 ? '' : `changed: ${list(changed.map((c) => `${quoteName(c.name)} (${aspects(c)})`))}`,
      missing.length === 0 ? '' : `missing: ${list(missing.map(quoteName))}`,
      unexpected.length === 0 ? '' : `unexpected: ${list(unexpected.map(quoteName))}`,
    ].filter((part) => part !== '');
    const detail = parts.length > 0 ? parts.join('; ') : 'its hashes differ although no single tool does';
    super('toolset.attestation_mismatch', `toolset does not match its attestation: ${detail}`);
    this.changed = Object.freeze([...changed]);
    this.missing = Object.freeze([...missing]);
    this.unexpected = Object.freeze([...unexpected]);
  }
}

async function attestTools(tools: ReadonlyArray<ToolContract & ToolAuthority>): Promise<AttestedTool[]> {
  // Each tool's texts as its toolset hashes them: a sealed ToolDef's from the memo.
  const texts = tools.map((tool) => ({ ...contractTextOf(tool), authority: authorityTextOf(tool).text }));
  return Promise.all(
    sortByName(texts).map(async ({ name, text, authority }) => ({
      name,
      contractHash: await sha256Hex(text),
      authorityHash: await sha256Hex(authority),
    })),
  );
}

export async function attestToolset(resolved: AttestableToolset): Promise<ToolsetAttestation> {
  const tools = await attestTools(resolved.tools);
  return Object.freeze({
    format: ATTESTATION_FORMAT,
    toolsetHash: resolved.toolsetHash,
    authorityHash: resolved.authorityHash,
    tools: Object.freeze(tools.map((t) => Object.freeze(t))),
  });
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** A pin read back from a file may be anything; refuse what is not one, naming the key. */
function assertAttestation(value: unknown): asserts value is ToolsetAttestation {
  const fail = (what: string): never => {
    throw new ConfigError('config.invalid_value', `'toolsetAttestation' is not a toolset attestation: ${what}`);
  };
  if (typeof value !== 'object' || value === null) fail('not an object');
  const v = value as Record<string, unknown>;
  if (v['format'] !== ATTESTATION_FORMAT) fail(`'format' must be '${ATTESTATION_FORMAT}'`);
  for (const key of ['toolsetHash', 'authorityHash']) {
    if (typeof v[key] !== 'string' || !HEX_SHA256.test(v[key])) fail(`'${key}' must be a lowercase hex sha256`);
  }
  if (!Array.isArray(v['tools'])) fail("'tools' must be an array");
  (v['tools'] as unknown[]).forEach((entry, i) => {
    const t = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const isHash = (k: string): boolean => typeof t[k] === 'string' && HEX_SHA256.test(t[k]);
    const ok = typeof t['name'] === 'string' && isHash('contractHash') && isHash('authorityHash');
    if (!ok) fail(`'tools[${i}]' must be { name, contractHash, authorityHash }`);
  });
}

/**
 * Resolves when `resolved` is exactly the attested toolset; otherwise rejects with a
 * ToolsetAttestationError (`toolset.attestation_mismatch`) naming changed, missing and
 * unexpected tools. A malformed attestation is `config.invalid_value`.
 */
export async function checkToolsetAttestation(
  resolved: AttestableToolset,
  attestation: ToolsetAttestation,
): Promise<void> {
  assertAttestation(attestation);
  // Equal top-level hashes mean an identical toolset; the per-tool walk only explains a miss.
  if (resolved.toolsetHash === attestation.toolsetHash && resolved.authorityHash === attestation.authorityHash) return;

  const pinned = new Map(attestation.tools.map((t) => [t.name, t]));
  const current = await attestTools(resolved.tools);
  const changed: ChangedTool[] = [];
  const unexpected: string[] = [];
  for (const tool of current) {
    const pin = pinned.get(tool.name);
    if (pin === undefined) unexpected.push(tool.name);
    else {
      const contract = pin.contractHash !== tool.contractHash;
      const authority = pin.authorityHash !== tool.authorityHash;
      if (contract || authority) changed.push({ name: tool.name, contract, authority });
    }
    pinned.delete(tool.name);
  }
  throw new ToolsetAttestationError(changed, [...pinned.keys()], unexpected);
}
