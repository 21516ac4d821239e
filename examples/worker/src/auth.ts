/**
 * The API's credential: `Authorization: Bearer <API_TOKEN>` on every route but an approval
 * link's. The comparison takes the same time whatever the token sent: both sides are hashed
 * to 32 bytes first, then every byte is compared, so neither the length nor the first
 * differing character shows in the timing. What the journal records of the caller is the
 * token's id, a digest of it (the token is at least 32 characters, so its digest reveals
 * nothing a caller could use), never the token.
 *
 * Pure (WebCrypto only), so test/node/example-worker-config.test.ts loads it directly.
 */
import { HttpError } from './http.js';

/** Longer than any token this Worker accepts (config.ts), short enough to hash for nothing. */
const MAX_HEADER_CHARS = 1_024;
const TOKEN_ID_DOMAIN = 'rulvar-worker token id\n';

/** Who made an authenticated request: `token:<16 hex>`, journaled as a resolution's decider. */
export type Decider = `token:${string}` | `link:${string}`;

/** The decider of a request that carries `apiToken`, or a 401 that says what is wrong. */
export async function authenticate(authorization: string | null, apiToken: string): Promise<Decider> {
  if (authorization === null || authorization.trim() === '') {
    throw unauthorized('auth.required', 'this route needs Authorization: Bearer <API_TOKEN>', 'invalid_request');
  }
  const match = authorization.length <= MAX_HEADER_CHARS ? /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(authorization) : null;
  const presented = match?.[1];
  if (presented === undefined || !(await sameSecret(presented, apiToken))) {
    throw unauthorized('auth.invalid', 'the bearer token is not this Worker\'s API_TOKEN', 'invalid_token');
  }
  return tokenId(apiToken);
}

/** A non-secret name for the token, the same on every request: what the journal keeps. */
export async function tokenId(apiToken: string): Promise<Decider> {
  return `token:${hex(await sha256(TOKEN_ID_DOMAIN + apiToken)).slice(0, 16)}`;
}

/** Equal strings, compared in time that depends on neither their contents nor their lengths. */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256(a), sha256(b)]);
  let difference = 0;
  for (let i = 0; i < x.length; i += 1) difference |= (x[i] as number) ^ (y[i] as number);
  return difference === 0;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function unauthorized(code: string, message: string, error: string): HttpError {
  return new HttpError(401, code, message, { 'www-authenticate': `Bearer realm="rulvar-worker", error="${error}"` });
}
