/**
 * The fetch every streamable-http wire request goes through (POST, GET and DELETE alike).
 * The header hook is awaited right before each send, which makes it the refresh point for
 * rotating credentials: the next request carries the new value with no reconnect. There is
 * deliberately no 401 retry here; an expired token fails like any transport error.
 */
import type { FetchLike, HeaderHook, HeaderRecord } from './config-types.js';

export function createHeaderFetch(
  headers: HeaderRecord | HeaderHook | undefined,
  baseFetch: FetchLike | undefined,
): FetchLike {
  // Resolve global fetch per call, not at construction: tests and hosts may replace it.
  const send: FetchLike = baseFetch ?? ((input, init) => fetch(input, init));
  if (headers === undefined) return send;
  return async (input, init) => {
    const extra = typeof headers === 'function' ? await headers() : headers;
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extra)) {
      try {
        merged.set(name, value);
      } catch {
        // The platform's own message quotes the value, which is usually a credential.
        throw new TypeError(`header ${JSON.stringify(name)} from http.headers has an invalid name or value`);
      }
    }
    return send(input, { ...init, headers: merged });
  };
}
