/**
 * One JSON POST to a provider, with the failure handling both adapters share: 429, 5xx and
 * network failures retried with backoff (the server's `retry-after` first), a timeout per
 * attempt, the caller's signal honoured mid-request and mid-backoff, and every error typed,
 * flagged `retryable` for the engine, and scrubbed of the secrets it was given.
 */
import { abortableSleep } from '../core/async.js';
import { retryDelay } from './backoff.js';
import { errorDetail, isRetryableStatus, providerError, redact, type ProviderError } from './errors.js';
import type { FetchLike } from './options.js';

export interface PostJson {
  /** Names the provider in messages: `anthropic`, or an OpenAI-compatible adapter's id. */
  readonly provider: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly fetch: FetchLike;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** Values that must never appear in an error: the API key and the caller's header values. */
  readonly secrets: readonly string[];
}

export async function postJson(request: PostJson, signal: AbortSignal): Promise<unknown> {
  const body = JSON.stringify(request.body);
  for (let attempt = 0; ; attempt += 1) {
    const outcome = await attemptOnce(request, body, signal);
    if (!('error' in outcome)) return outcome.value;
    if (!outcome.error.retryable || attempt >= request.maxRetries) throw outcome.error;
    await abortableSleep(retryDelay(attempt, outcome.headers), signal);
  }
}

type Attempt = { value: unknown } | { error: ProviderError; headers?: Headers };

async function attemptOnce(request: PostJson, body: string, signal: AbortSignal): Promise<Attempt> {
  const { provider, secrets } = request;
  if (signal.aborted) throw signal.reason;
  // One signal for the caller's abort and this attempt's timeout, reading the body included.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, request.timeoutMs);
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  let text: string;
  try {
    // Raced as well as signalled: a custom fetch (a test app, a binding) may ignore the signal.
    const exchange = request.fetch(request.url, { method: 'POST', headers: request.headers, body, signal: controller.signal }).then(async (r) => ({ r, t: await r.text() }));
    ({ r: response, t: text } = await untilAborted(exchange, controller.signal));
  } catch (cause) {
    if (signal.aborted) throw signal.reason;
    if (timedOut) {
      return { error: providerError('model.failed', `${provider} did not answer within ${request.timeoutMs} ms`, { retryable: false, secrets }) };
    }
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return { error: providerError('model.failed', `${provider} could not be reached (${what})`, { retryable: true, secrets }) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
  if (!response.ok) {
    const status = response.status;
    // Scrubbed before it is cut: a key straddling the cut would otherwise leave its prefix behind.
    const message = `${provider} answered HTTP ${status}: ${errorDetail(redact(text, secrets))}`;
    return { error: providerError('model.failed', message, { retryable: isRetryableStatus(status), status, secrets }), headers: response.headers };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    const message = `${provider} answered HTTP ${response.status} with a body that is not JSON (${text.length} characters)`;
    return { error: providerError('model.protocol', message, { retryable: false, status: response.status, secrets }) };
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts, whichever is first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
