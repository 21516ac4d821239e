/**
 * The fetch every streamable-http wire request goes through (POST, GET and DELETE alike).
 * The header hook is awaited right before each send, which makes it the refresh point for
 * rotating credentials: the next request carries the new value with no reconnect. There is
 * deliberately no 401 retry here; an expired token fails like any transport error.
 */
import { limitResponse } from './body-limit.js';
import type { FetchLike, HeaderHook, HeaderRecord } from './config-types.js';

/**
 * The host's header hook failed, or produced a header the platform refuses. The session is
 * not at fault, so it is kept. The message names the header or the error's class, never a
 * value: what a header hook handles is usually a credential.
 */
export class HeaderHookError extends Error {
  override readonly name = 'HeaderHookError';
}

export function createHeaderFetch(
  headers: HeaderRecord | HeaderHook | undefined,
  baseFetch: FetchLike | undefined,
  onOverflow: (error: Error) => void,
): FetchLike {
  // Resolve global fetch per call, not at construction: tests and hosts may replace it.
  const raw: FetchLike = baseFetch ?? ((input, init) => fetch(input, init));
  const send: FetchLike = async (input, init) => limitResponse(await raw(input, init), onOverflow);
  if (headers === undefined) return send;
  return async (input, init) => {
    let extra: HeaderRecord;
    try {
      extra = typeof headers === 'function' ? await headers() : headers;
    } catch (error) {
      const kind = error instanceof Error ? error.name : typeof error;
      throw new HeaderHookError(`the http.headers hook failed (${kind})`);
    }
    if (typeof extra !== 'object' || extra === null) {
      throw new HeaderHookError('the http.headers hook must return a record of header names to values');
    }
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extra)) {
      try {
        merged.set(name, value);
      } catch {
        // The platform's own message quotes the value.
        throw new HeaderHookError(`header ${JSON.stringify(name)} from http.headers has an invalid name or value`);
      }
    }
    return send(input, { ...init, headers: merged });
  };
}
