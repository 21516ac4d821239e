/**
 * The errors a provider adapter throws. Each is a RulvarError with a stable code and a
 * `retryable` flag the engine reads (model-call.ts): 429, 5xx and network failures say true,
 * so the engine's own retry policy applies once the adapter's retries are spent; anything
 * else says false. Messages carry what the provider said, cut short, with every secret the
 * adapter knows replaced, because an error body may echo the request's headers back.
 */
import { RulvarError, cutText, type RulvarErrorCode } from '../core/errors.js';

/** A RulvarError from a provider call; `status` is absent when no HTTP answer came. */
export interface ProviderError extends RulvarError {
  readonly retryable: boolean;
  readonly status?: number;
}

/** Longest slice of a provider's error text kept in a message. */
const MAX_DETAIL_CHARS = 300;
const REDACTED = '[redacted]';

export function providerError(
  code: RulvarErrorCode,
  message: string,
  facts: { retryable: boolean; status?: number; secrets: readonly string[]; cause?: unknown },
): ProviderError {
  const error = new RulvarError(code, redact(message, facts.secrets));
  // The cause is described, never kept: a fetch failure can hold the request and its headers.
  const extra = { retryable: facts.retryable, ...(facts.status === undefined ? {} : { status: facts.status }) };
  return Object.assign(error, extra);
}

/** True for the statuses worth another try: rate limits, server errors, Anthropic's 529 overload. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `text` with every secret replaced; secrets shorter than 4 characters are not worth matching. */
export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret.length >= 4) clean = clean.split(secret).join(REDACTED);
  }
  // A proxy may echo a credential the adapter never saw (a header added by `fetch`).
  return clean.replace(/\b(Bearer)\s+[^\s"',}]+/gi, `$1 ${REDACTED}`);
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
