/**
 * What an AI SDK model throws (or streams as an `error` part) as a ProviderError. The AI SDK's
 * `APICallError` says itself whether another try may help (`isRetryable`: 408, 409, 429, 5xx
 * and network failures); that flag is the one the engine reads. Only the error's name, status
 * and message are kept, the message scrubbed of the host's secrets and cut short: the error
 * object also holds the request body, the URL and the response headers, none of which may
 * reach a journal or a log.
 */
import { cutText } from '../core/errors.js';
import type { Redactor } from '../core/secrets/redactor.js';
import { providerError, scrubMessage, type ProviderError } from '../adapters/errors.js';

/** Longest slice of a provider's error text kept in a message. */
const MAX_DETAIL_CHARS = 300;
/** Longest error name kept (the AI SDK's are like `AI_APICallError`). */
const MAX_NAME_CHARS = 60;

export function thrownByModel(cause: unknown, name: string, redactor: Redactor): ProviderError {
  const facts = read(cause);
  const status = facts.status === undefined ? '' : ` HTTP ${facts.status}`;
  // Scrubbed before it is cut: a key straddling the cut would otherwise leave its prefix behind.
  const detail = cutText(scrubMessage(facts.message, redactor), MAX_DETAIL_CHARS);
  const message = `${name} failed (${facts.name}${status}): ${detail}`;
  return providerError('model.failed', message, { retryable: facts.retryable, ...(facts.status === undefined ? {} : { status: facts.status }), redactor });
}

interface Facts {
  name: string;
  message: string;
  retryable: boolean;
  status?: number;
}

/**
 * Each field read once, under a guard: a hostile model may throw a proxy whose every read
 * throws. A streamed error part may carry a provider's parsed error body instead of an Error.
 */
function read(cause: unknown): Facts {
  const facts: Facts = { name: 'an error', message: 'no message', retryable: false };
  if (typeof cause !== 'object' || cause === null) {
    facts.message = typeof cause === 'string' ? cause : `a thrown ${cause === null ? 'null' : typeof cause}`;
    return facts;
  }
  const error = cause as { name?: unknown; message?: unknown; isRetryable?: unknown; statusCode?: unknown; error?: unknown };
  guarded(() => {
    if (typeof error.name === 'string' && error.name !== '') facts.name = error.name.slice(0, MAX_NAME_CHARS);
  });
  guarded(() => {
    const nested = typeof error.error === 'object' && error.error !== null ? (error.error as { message?: unknown }).message : undefined;
    const message = typeof error.message === 'string' ? error.message : nested;
    if (typeof message === 'string' && message !== '') facts.message = message;
  });
  guarded(() => {
    facts.retryable = error.isRetryable === true;
  });
  guarded(() => {
    if (typeof error.statusCode === 'number' && Number.isInteger(error.statusCode)) facts.status = error.statusCode;
  });
  return facts;
}

function guarded(read: () => void): void {
  try {
    read();
  } catch {
    // What could not be read is left at its default: the failure is still reported.
  }
}
