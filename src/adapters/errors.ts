/**
 * The errors a provider adapter throws. Each is a RulvarError with a stable code and a
 * `retryable` flag the engine reads (model-call.ts): 429, 5xx and network failures say true,
 * so the engine's own retry policy applies once the adapter's retries are spent; anything
 * else says false. Messages carry what the provider said, cut short, with every secret the
 * adapter knows scrubbed by the shared redactor, because an error body may echo the request's
 * headers back.
 */
import { RulvarError, cutText, type RulvarErrorCode } from '../core/errors.js';
import type { Redactor } from '../core/secrets/redactor.js';

/** A RulvarError from a provider call; `status` is absent when no HTTP answer came. */
export interface ProviderError extends RulvarError {
  readonly retryable: boolean;
  readonly status?: number;
}

/** Longest slice of a provider's error text kept in a message. */
const MAX_DETAIL_CHARS = 300;

export function providerError(
  code: RulvarErrorCode,
  message: string,
  facts: { retryable: boolean; status?: number; redactor: Redactor },
): ProviderError {
  const error = new RulvarError(code, scrubMessage(message, facts.redactor));
  // Plain data properties, so whoever reads them runs no code; no cause is kept, since a
  // fetch failure can hold the request and its headers.
  const extra = { retryable: facts.retryable, ...(facts.status === undefined ? {} : { status: facts.status }) };
  return Object.assign(error, extra);
}

/** True for the statuses worth another try: rate limits, server errors, Anthropic's 529 overload. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * `text` with the adapter's secrets scrubbed, and any `Bearer …` token too: in an error, a
 * proxy may echo a credential the adapter never saw (one a custom fetch added).
 */
export function scrubMessage(text: string, redactor: Redactor): string {
  return redactor.text(text).replace(/\b(Bearer)\s+[^\s"',}]+/gi, '$1 [redacted]');
}

/** What the provider said went wrong, from its JSON error body or the raw text, cut short. */
export function errorDetail(bodyText: string): string {
  let detail = bodyText.trim();
  try {
    const parsed = JSON.parse(bodyText) as { error?: { message?: unknown } | string; message?: unknown } | null;
    const nested = typeof parsed?.error === 'object' && parsed.error !== null ? parsed.error.message : parsed?.error;
    const message = nested ?? parsed?.message;
    if (typeof message === 'string') detail = message;
  } catch {
    // Not JSON (an HTML page from a proxy, say): the text itself is the best detail there is.
  }
  return detail === '' ? 'no error body' : cutText(detail, MAX_DETAIL_CHARS);
}
