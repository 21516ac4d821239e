/**
 * The fetch every streamable-http wire request goes through (POST, GET and DELETE alike).
 * The header hook is awaited right before each send, which makes it the refresh point for
 * rotating credentials: the next request carries the new value with no reconnect. There is
 * deliberately no 401 retry here; an expired token fails like any transport error.
 *
 * Every value injected is handed to the source's Redactor first: whatever the server echoes
 * back (in an error body, a JSON-RPC message, a tool result) is scrubbed before anyone sees it.
 */
import { limitResponse } from './body-limit.js';
import type { FetchLike, HeaderHook, HeaderRecord } from './config-types.js';
import type { Redactor } from './redact.js';

/**
 * The host's header hook failed, or produced something that cannot be sent. The session is
 * not at fault, so it is kept, and nothing was sent. The message names the header or the
 * error's class, never a value: what a header hook handles is usually a credential.
 */
export class HeaderHookError extends Error {
  override readonly name = 'HeaderHookError';
}

export function createHeaderFetch(
  headers: HeaderRecord | HeaderHook | undefined,
  baseFetch: FetchLike | undefined,
  onOverflow: (error: Error) => void,
  redactor: Redactor,
): FetchLike {
  // Resolve global fetch per call, not at construction: tests and hosts may replace it.
  const raw: FetchLike = baseFetch ?? ((input, init) => fetch(input, init));
  const send: FetchLike = async (input, init) => limitResponse(await raw(input, init), onOverflow);
  if (headers === undefined) return send;
  return async (input, init) => {
    const merged = new Headers(init?.headers);
    const pairs = await resolveHeaders(headers);
    redactor.remember(pairs);
    for (const [name, value] of pairs) {
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
