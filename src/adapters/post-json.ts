/**
 * One JSON POST to a provider, with the failure handling both adapters share: 429, 5xx and
 * network failures retried with backoff (the server's `retry-after` first), a timeout per
 * attempt, the caller's signal honoured mid-request and mid-backoff, redirects refused, the
 * answer read within `maxResponseBytes`, and every error typed, flagged `retryable` for the
 * engine, and scrubbed of the adapter's secrets.
 */
import { abortableSleep } from '../core/async.js';
import { describeCause } from '../core/errors.js';
import { retryDelay } from './backoff.js';
import { errorDetail, isRetryableStatus, providerError, scrubMessage, type ProviderError } from './errors.js';
import type { Transport } from './options.js';
import { discard, readBody, readErrorBody } from './read-body.js';
import { isRedirect, redirectRefused } from './redirects.js';

export interface PostJson {
  /** Names the provider in messages: `anthropic`, or an OpenAI-compatible adapter's id. */
  readonly provider: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Builds the body; a request that cannot be encoded fails before anything is sent. */
  readonly encode: () => unknown;
  readonly transport: Transport;
}

export async function postJson(request: PostJson, signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) throw signal.reason;
  const body = encoded(request);
  for (let attempt = 0; ; attempt += 1) {
    const outcome = await attemptOnce(request, body, signal);
    if (!('error' in outcome)) return outcome.value;
    if (!outcome.error.retryable || attempt >= request.transport.maxRetries) throw outcome.error;
    await abortableSleep(retryDelay(attempt, outcome.headers), signal);
  }
}

export function encoded(request: PostJson): string {
  try {
    return JSON.stringify(request.encode());
  } catch (cause) {
    // A history the host built by hand may hold what JSON cannot (a cycle, a BigInt).
    const message = `${request.provider} could not encode the request as JSON (${describeCause(cause)})`;
    throw providerError('model.failed', message, { retryable: false, redactor: request.transport.redactor });
  }
}

export type Attempt = { value: unknown } | Failure;
export type Failure = { error: ProviderError; headers?: Headers };

async function attemptOnce(request: PostJson, body: string, signal: AbortSignal): Promise<Attempt> {
  const { provider, transport } = request;
  const { redactor } = transport;
  if (signal.aborted) throw signal.reason;
  // One signal for the caller's abort and this attempt's timeout, reading the body included.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, transport.timeoutMs);
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // `manual`: a redirect comes back as an answer, so credentials never follow it (redirects.ts).
    const init: RequestInit = { method: 'POST', headers: request.headers, body, signal: controller.signal, redirect: 'manual' };
    // Raced as well as signalled: a custom fetch (a test app, a binding) may ignore the signal.
    const exchange = transport.fetch(request.url, init).then((response) => answerOf(request, response, controller.signal));
    return await untilAborted(exchange, controller.signal);
  } catch (cause) {
    if (signal.aborted) throw signal.reason;
    if (timedOut) {
      return { error: providerError('model.failed', `${provider} did not answer within ${transport.timeoutMs} ms`, { retryable: false, redactor }) };
    }
    return { error: providerError('model.failed', `${provider} could not be reached (${causeText(cause)})`, { retryable: true, redactor }) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

async function answerOf(request: PostJson, response: Response, signal: AbortSignal): Promise<Attempt> {
  const { provider, transport } = request;
  const { redactor } = transport;
  const failure = await refusalOf(request, response, signal);
  if (failure !== undefined) return failure;
  const status = response.status;
  const protocol = (message: string): Attempt => ({ error: providerError('model.protocol', message, { retryable: false, status, redactor }) });
  const read = await readBody(response, transport.maxResponseBytes, signal);
  if ('tooLarge' in read) {
    const size = read.declared === undefined ? 'more than' : `${read.declared} bytes, more than`;
    return protocol(`${provider} answered HTTP ${status} with a body of ${size} maxResponseBytes (${transport.maxResponseBytes})`);
  }
  if ('undecodable' in read) return protocol(`${provider} answered HTTP ${status} with a body that is not UTF-8`);
  try {
    return { value: JSON.parse(read.text) as unknown };
  } catch {
    return protocol(`${provider} answered HTTP ${status} with a body that is not JSON (${read.text.length} characters)`);
  }
}

/**
 * What an answer that is not a 2xx Response says went wrong (undefined for a 2xx): a custom
 * fetch's non-Response, a redirect, an HTTP error with the provider's detail. Shared with
 * streams (post-stream.ts), whose failures before the first byte are these same ones.
 */
export async function refusalOf(request: PostJson, response: Response, signal: AbortSignal): Promise<Failure | undefined> {
  const { provider, transport } = request;
  const { redactor } = transport;
  // A custom fetch is the host's code: what it resolves with is checked, not trusted.
  if (!isResponse(response)) return { error: providerError('model.protocol', `the fetch of ${provider} answered something that is not a Response`, { retryable: false, redactor }) };
  const status = response.status;
  if (isRedirect(response)) {
    discard(response);
    return { error: redirectRefused(provider, request.url, response, redactor) };
  }
  if (!response.ok) {
    const text = await readErrorBody(response, signal);
    // Scrubbed before it is cut: a key straddling the cut would otherwise leave its prefix behind.
    const message = `${provider} answered HTTP ${status}: ${errorDetail(scrubMessage(text, redactor))}`;
    return { error: providerError('model.failed', message, { retryable: isRetryableStatus(status), status, redactor }), headers: response.headers };
  }
  return undefined;
}

/** Duck-typed, not `instanceof`: a polyfilled fetch or another realm has its own Response class. */
function isResponse(value: unknown): value is Response {
  const candidate = value as Partial<Response> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.status === 'number' && typeof candidate.headers?.get === 'function';
}

/** A thrown value described without running its code twice: a hostile fetch may throw anything. */
export function causeText(cause: unknown): string {
  try {
    return cause instanceof Error ? `${cause.name}: ${cause.message}` : describeCause(cause);
  } catch {
    return 'an unprintable error';
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts, whichever is first. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
