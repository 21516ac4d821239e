/**
 * The fetch every streamable-http wire request goes through (POST, GET and DELETE alike).
 * The header hook is awaited right before each send, which makes it the refresh point for
 * rotating credentials: the next request carries the new value with no reconnect. There is
 * deliberately no 401 retry here; an expired token fails like any transport error.
 *
 * Every value injected is handed to the source's Redactor first: whatever the server echoes
 * back (in an error body, a JSON-RPC message, a tool result) is scrubbed before anyone sees it.
 * Every response is capped in size (body-limit.ts) and an SSE stream has its malformed
 * answers replaced by stand-ins the client settles at once (sse-answers.ts).
 *
 * With an http.authProvider the SDK sends requests of its own (OAuth metadata, registration,
 * token) through this fetch too. The hook's headers go only to the MCP server's origin, never
 * to an authorization server elsewhere, and never replace an Authorization header the SDK
 * set (the provider's bearer token, or client credentials for the token endpoint): the
 * provider wins, because the SDK's retry after a refresh depends on its token being the one sent.
 */
import { limitResponse } from './body-limit.js';
import { HttpAuthError, describeRefusal, describeRefusedToken, parseChallenge } from './challenge.js';
import type { FetchLike, HeaderHook, HeaderRecord } from './config-types.js';
import type { Redactor } from '../secrets/redactor.js';
import { repairSseAnswers } from './sse-answers.js';

/**
 * The host's header hook failed, or produced something that cannot be sent. The session is
 * not at fault, so it is kept, and nothing was sent. The message names the header or the
 * error's class, never a value: what a header hook handles is usually a credential.
 */
export class HeaderHookError extends Error {
  override readonly name = 'HeaderHookError';
}

/** Where the wire goes, and whether the SDK answers 401/403 itself (with an authProvider). */
export interface Endpoint {
  readonly url: URL;
  readonly authorizes: boolean;
  /**
   * Told of a 403 insufficient_scope the SDK is about to answer, with the challenged scope;
   * a scope it returns is the one the SDK is shown in the challenge instead.
   */
  readonly onStepUp?: (challenged: string | undefined) => string | undefined;
  /**
   * Told of each 401 the SDK would answer with its flow, with the challenge and the request's
   * body; true when that request was the flow's own resend, so the refusal is final.
   */
  readonly onUnauthorized?: (challenge: string | null, requestBody: unknown) => boolean;
}

export function createHeaderFetch(
  headers: HeaderRecord | HeaderHook | undefined,
  baseFetch: FetchLike | undefined,
  onOverflow: (error: Error) => void,
  redactor: Redactor,
  endpoint: Endpoint,
): FetchLike {
  // Resolve global fetch per call, not at construction: tests and hosts may replace it.
  const raw: FetchLike = baseFetch ?? ((input, init) => fetch(input, init));
  const send: FetchLike = async (input, init) => refuseUnauthorized(repairSseAnswers(limitResponse(await raw(input, init), onOverflow)), input, init, endpoint);
  if (headers === undefined) return send;
  return async (input, init) => {
    if (new URL(String(input)).origin !== endpoint.url.origin) return send(input, init);
    const merged = new Headers(init?.headers);
    const pairs = await resolveHeaders(headers);
    redactor.remember(pairs);
    const sdkAuthorization = merged.has('authorization');
    for (const [name, value] of pairs) {
      if (sdkAuthorization && name.toLowerCase() === 'authorization') continue;
      try {
        // A header value is a byte string (Fetch); runtimes differ on what they do with one
        // that is not (Node throws, workerd re-encodes), so it is refused here, the same everywhere.
        if (!isByteString(value)) throw new TypeError('not a byte string');
        merged.set(name, value);
      } catch {
        // The platform's own message quotes the value.
        throw new HeaderHookError(`header ${quote(name)} from http.headers has an invalid name or value; nothing was sent`);
      }
    }
    return send(input, { ...init, headers: merged });
  };
}

/**
 * A 401 or 403 from the MCP endpoint becomes an error naming the server's challenge, where the
 * SDK would otherwise report only the status and body. With a provider the SDK keeps the 401s
 * and the 403 insufficient_scope it knows how to answer; any other 403 is no case for re-auth,
 * and neither is a 401 to the flow's own resend (the token it just obtained was refused).
 */
async function refuseUnauthorized(response: Response, input: string | URL, init: RequestInit | undefined, endpoint: Endpoint): Promise<Response> {
  if (response.status !== 401 && response.status !== 403) return response;
  const url = new URL(String(input));
  if (url.origin !== endpoint.url.origin || url.pathname !== endpoint.url.pathname) return response;
  const header = response.headers.get('www-authenticate');
  const challenge = parseChallenge(header);
  const stepUp = response.status === 403 && challenge?.params.get('error') === 'insufficient_scope';
  const widened = endpoint.authorizes && stepUp ? endpoint.onStepUp?.(challenge?.params.get('scope')) : undefined;
  if (widened !== undefined && header !== null) return withChallengeScope(response, header, widened);
  const final = endpoint.authorizes && response.status === 401 && endpoint.onUnauthorized?.(header, init?.body) === true;
  if (endpoint.authorizes && !final && (response.status === 401 || stepUp)) return response;
  // The body stays in the message as the SDK's own error had it; the source's Redactor
  // scrubs any credential a server echoes there.
  const body = await response.text().catch(() => '');
  throw new HttpAuthError(response.status, final ? describeRefusedToken(header, body) : describeRefusal(response.status, header, endpoint.authorizes, body));
}

/** The response with its challenge asking for `scope` instead, its other parameters as they were. */
function withChallengeScope(response: Response, header: string, scope: string): Response {
  const headers = new Headers(response.headers);
  headers.set('www-authenticate', header.replace(/\bscope=("(?:[^"\\]|\\.)*"|[^\s,]*)/i, `scope="${scope.replace(/["\\]/g, '')}"`));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function isByteString(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) if (value.charCodeAt(i) > 0xff) return false;
  return true;
}

/** The hook's (or the record's) headers as name/value pairs, every value a string. */
async function resolveHeaders(headers: HeaderRecord | HeaderHook): Promise<[string, string][]> {
  let produced: unknown;
  try {
    produced = typeof headers === 'function' ? await headers() : headers;
  } catch (error) {
    throw new HeaderHookError(`the http.headers hook failed (${kindOf(error)}); nothing was sent`);
  }
  try {
    if (produced instanceof Headers) return [...produced.entries()];
    if (typeof produced !== 'object' || produced === null || Array.isArray(produced)) {
      throw new HeaderHookError('the http.headers hook must return a record of header names to string values, or a Headers object');
    }
    const pairs: [string, string][] = [];
    for (const [name, value] of Object.entries(produced)) {
      // `undefined` would go out as the text "undefined": refuse instead of guessing.
      if (typeof value !== 'string') {
        throw new HeaderHookError(`header ${quote(name)} from http.headers is ${kindOf(value)}, not a string; nothing was sent`);
      }
      pairs.push([name, value]);
    }
    return pairs;
  } catch (error) {
    if (error instanceof HeaderHookError) throw error;
    // A getter on the returned record threw while its headers were read.
    throw new HeaderHookError(`reading the headers from http.headers failed (${kindOf(error)}); nothing was sent`);
  }
}

function quote(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
}

/** What a value is, in a word: never what it contains. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Error) return value.name;
  return Array.isArray(value) ? 'an array' : typeof value;
}
