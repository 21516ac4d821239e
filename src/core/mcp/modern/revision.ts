/**
 * The two MCP revisions this client speaks and what tells them apart. 2025-11-25 ("legacy")
 * opens a session with `initialize`; 2026-07-28 ("modern") has no session at all: every
 * request carries the protocol version, the client's capabilities and its identity in
 * `params._meta`, and the server answers each request on its own.
 */
import { CLIENT_INFO } from '../wire-client.js';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

/** What `mcp({ protocol })` accepts; '2025-11-25' is the default (docs/mcp.md says why). */
export type ProtocolOption = 'auto' | typeof MODERN | typeof LEGACY;
export const PROTOCOL_OPTIONS: readonly ProtocolOption[] = ['auto', MODERN, LEGACY];

export type Era = 'legacy' | 'modern';

const PREFIX = 'io.modelcontextprotocol/';
export const META_VERSION = `${PREFIX}protocolVersion`;
export const META_SUBSCRIPTION = `${PREFIX}subscriptionId`;

/**
 * The request envelope. This client declares no capabilities: it lists and calls tools, and
 * offers a server nothing to ask of it (no sampling, no elicitation, no roots).
 */
export const ENVELOPE: Readonly<Record<string, unknown>> = Object.freeze({
  [META_VERSION]: MODERN,
  [`${PREFIX}clientCapabilities`]: Object.freeze({}),
  [`${PREFIX}clientInfo`]: CLIENT_INFO,
});

/**
 * The errors only a modern server sends (HeaderMismatch, MissingRequiredClientCapability,
 * UnsupportedProtocolVersion). Any other error to a modern request says nothing about the
 * era: legacy servers answer an unknown method with whatever code they like.
 */
export const MODERN_ERRORS: ReadonlySet<number> = new Set([-32020, -32021, -32022]);
export const UNSUPPORTED_VERSION = -32022;
export const HEADER_MISMATCH = -32020;

/**
 * The versions a -32022 answer offers (`data.supported`), when it offers a readable list:
 * at most 32 strings, each quoted cut in messages. Anything else offers nothing.
 */
export function offeredVersions(data: unknown): readonly string[] | undefined {
  const supported = typeof data === 'object' && data !== null ? (data as { supported?: unknown }).supported : undefined;
  if (!Array.isArray(supported) || supported.length > 32) return undefined;
  return supported.every((v) => typeof v === 'string') ? (supported as string[]).map((v) => v.slice(0, 40)) : undefined;
}

/** "2026-07-28, 2025-11-25" or "none", for refusals that name what a server offered. */
export function listVersions(versions: readonly string[] | undefined): string {
  return versions === undefined || versions.length === 0 ? 'none it would name' : versions.map((v) => JSON.stringify(v)).join(', ');
}
