/**
 * Approval links: a capability to decide one approval, for a person who holds no API token.
 * A link is `<claims>.<mac>`: the claims (run id, approval key, the decision it may make or
 * none to let its holder choose, when it expires, a random link id) as base64url JSON, and
 * an HMAC-SHA-256 over them under APPROVAL_LINK_SECRET (WebCrypto; `verify` compares in
 * constant time). Whoever lacks the secret cannot make or alter one: a changed byte anywhere
 * is `link.invalid`. Expiry is checked here; "one decision each" is checked by the run's
 * object against its journal (a resolution whose decider is this link's id).
 *
 * Pure (WebCrypto only), so test/node/example-worker-config.test.ts loads it directly.
 */
import { hex } from './auth.js';
import { HttpError } from './http.js';

export interface LinkClaims {
  readonly runId: string;
  readonly key: string;
  /** The one decision this link can make; absent, its holder chooses. */
  readonly decision?: 'allow' | 'deny';
  /** Epoch milliseconds; the link is refused from then on. */
  readonly expiresAt: number;
  /** Random, not secret: the decider the journal records is `link:<id>`. */
  readonly id: string;
}

const MAC_DOMAIN = 'rulvar-worker approval link v1\n';
/** A 256-character key of 3-byte characters, base64url'd, with room to spare. */
const MAX_CLAIMS_CHARS = 1_600;
const LINK_SHAPE = /^([A-Za-z0-9_-]{1,1600})\.([A-Za-z0-9_-]{43})$/;
const LINK_ID = /^[0-9a-f]{32}$/;
const MAX_KEY_CHARS = 256;

export function newLinkId(): string {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

export async function signLink(claims: LinkClaims, secret: string): Promise<string> {
  const { runId: r, key: k, decision: d, expiresAt: e, id: i } = claims;
  const body = base64url(new TextEncoder().encode(JSON.stringify({ v: 1, r, k, ...(d === undefined ? {} : { d }), e, i })));
  const mac = await crypto.subtle.sign('HMAC', await macKey(secret), new TextEncoder().encode(MAC_DOMAIN + body));
  return `${body}.${base64url(new Uint8Array(mac))}`;
}

/** The claims of a link this Worker issued and that has not expired at `now`; else a typed refusal. */
export async function verifyLink(link: string, secret: string, now: number): Promise<LinkClaims> {
  const match = link.length <= MAX_CLAIMS_CHARS + 44 ? LINK_SHAPE.exec(link) : null;
  const [, body, mac] = match ?? [];
  if (body === undefined || mac === undefined) throw forged();
  const macBytes = fromBase64url(mac);
  const bodyBytes = fromBase64url(body);
  if (macBytes === undefined || bodyBytes === undefined) throw forged();
  const signed = await crypto.subtle.verify('HMAC', await macKey(secret), macBytes, new TextEncoder().encode(MAC_DOMAIN + body));
  if (!signed) throw forged();
  const claims = parseClaims(new TextDecoder().decode(bodyBytes));
  if (now >= claims.expiresAt) throw new HttpError(410, 'link.expired', `this approval link expired at ${new Date(claims.expiresAt).toISOString()}; ask for a new one`);
  return claims;
}

/** Only this Worker writes claims, so anything unexpected here means the secret leaked or the format changed. */
function parseClaims(text: string): LinkClaims {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw forged();
  }
  const { v, r, k, d, e, i } = raw;
  const valid =
    v === 1 &&
    typeof r === 'string' &&
    typeof k === 'string' &&
    k.length <= MAX_KEY_CHARS &&
    (d === undefined || d === 'allow' || d === 'deny') &&
    Number.isSafeInteger(e) &&
    typeof i === 'string' &&
    LINK_ID.test(i);
  if (!valid) throw forged();
  return { runId: r, key: k, ...(d === undefined ? {} : { decision: d }), expiresAt: e as number, id: i };
}

function forged(): HttpError {
  return new HttpError(403, 'link.invalid', 'this approval link was not issued by this Worker, or was altered');
}

function macKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The bytes of `text` when it is the one encoding this Worker writes of them; undefined
 * otherwise. A last character carries bits no byte uses, and atob ignores them: without the
 * round trip, a link with that character changed would verify (one altered link in 16).
 * The shape was checked (LINK_SHAPE), so every character is base64url.
 */
function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return base64url(bytes) === text ? bytes : undefined;
}
