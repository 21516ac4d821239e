/**
 * How long to wait before the next attempt: what the server asked for in `retry-after`
 * (seconds or an HTTP date; OpenAI's `retry-after-ms` too), else exponential backoff with
 * jitter, both capped so that one misbehaving proxy cannot park a run for an hour.
 */

const BASE_DELAY_MS = 500;
/** The longest computed backoff between two attempts. */
const MAX_BACKOFF_MS = 8_000;
/** The longest server-requested wait honoured; a longer request is cut to this. */
const MAX_RETRY_AFTER_MS = 60_000;

/** `now` and `random` are the clock and the jitter source, given by tests. */
export function retryDelay(attempt: number, headers: Headers | undefined, now: number = Date.now(), random: () => number = Math.random): number {
  const asked = headers === undefined ? undefined : retryAfter(headers, now);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  // Jitter in [0.5, 1) of the step keeps many clients that failed together from retrying together.
  const step = Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return step * (0.5 + random() / 2);
}

/** The server's requested wait in ms, or undefined when it asked for nothing readable. */
function retryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
