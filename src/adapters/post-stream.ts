/**
 * One POST whose answer is a stream of server-sent events (sse.ts), with everything postJson
 * guarantees up to the answer's first byte: the same retries (429, 5xx, network failures,
 * `retry-after`), the same refusals (redirects, HTTP errors with the provider's scrubbed
 * detail, a custom fetch's non-Response), the same signal. Then, while the stream is read:
 * `timeoutMs` still bounds the whole attempt, `idleTimeoutMs` each silence between two reads
 * (a retryable cut), `maxResponseBytes` the stream and `maxEventBytes` each event (both
 * `model.protocol`); a connection that breaks midway is a retryable cut. Whatever ends the
 * stream, early or not, the body is cancelled and every timer and listener released.
 */
import { abortableSleep } from '../core/async.js';
import { retryDelay } from './backoff.js';
import { providerError, type ProviderError } from './errors.js';
import { causeText, encoded, refusalOf, untilAborted, type Failure, type PostJson } from './post-json.js';
import { declaredLength, discard, readBody, type BodyRead } from './read-body.js';
import { SseParser, SseRefusal, type SseEvent } from './sse.js';

export async function* postStream(request: PostJson, signal: AbortSignal): AsyncGenerator<SseEvent> {
  if (signal.aborted) throw signal.reason;
  const body = encoded(request);
  for (let attempt = 0; ; attempt += 1) {
    const exchange = new Exchange(request, signal);
    try {
      const opened = await exchange.open(body);
      if ('error' in opened) {
        if (!opened.error.retryable || attempt >= request.transport.maxRetries) throw opened.error;
        exchange.close();
        await abortableSleep(retryDelay(attempt, opened.headers), signal);
        continue;
      }
      yield* exchange.events(opened);
      return;
    } finally {
      exchange.close();
    }
  }
}

/** One attempt: its controller (the caller's signal and the attempt's timeout together) and its timer. */
class Exchange {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private timedOut = false;
  private readonly onAbort = () => this.controller.abort(this.signal.reason);

  constructor(
    private readonly request: PostJson,
    private readonly signal: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('timeout'));
    }, request.transport.timeoutMs);
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  async open(body: string): Promise<Response | Failure> {
    const { provider, transport } = this.request;
    const headers = { ...this.request.headers, accept: 'text/event-stream' };
    const init: RequestInit = { method: 'POST', headers, body, signal: this.controller.signal, redirect: 'manual' };
    try {
      const response = await untilAborted(transport.fetch(this.request.url, init), this.controller.signal);
      return (await refusalOf(this.request, response, this.controller.signal)) ?? response;
    } catch (cause) {
      return { error: this.failure(cause, `${provider} could not be reached (${causeText(cause)})`) };
    }
  }

  async *events(response: Response): AsyncGenerator<SseEvent> {
    const { provider, transport } = this.request;
    if (/^application\/json/i.test(response.headers.get('content-type') ?? '')) {
      yield await this.whole(response);
      return;
    }
    // A stream that declares its size past the bound is refused before a byte of it is read.
    const declared = declaredLength(response.headers);
    if (declared !== undefined && declared > transport.maxResponseBytes) {
      discard(response);
      throw this.protocol(`${provider} answered a stream of ${declared} bytes, more than maxResponseBytes (${transport.maxResponseBytes})`);
    }
    const body = response.body;
    if (body === null) return;
    const reader = body.getReader();
    const parser = new SseParser(transport.maxEventBytes);
    let total = 0;
    try {
      for (;;) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await this.idleBounded(reader.read());
        } catch (cause) {
          throw this.failure(cause, `${provider}'s stream broke (${causeText(cause)})`);
        }
        if (read.done) return;
        total += read.value.byteLength;
        if (total > transport.maxResponseBytes) throw this.protocol(`${provider} streamed more than maxResponseBytes (${transport.maxResponseBytes})`);
        let events: SseEvent[];
        try {
          events = parser.push(read.value);
        } catch (error) {
          if (!(error instanceof SseRefusal)) throw error;
          throw this.protocol(error.reason === 'too_large' ? `${provider} streamed an event of more than maxEventBytes (${transport.maxEventBytes})` : `${provider} streamed bytes that are not UTF-8`);
        }
        yield* events;
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  private async whole(response: Response): Promise<SseEvent> {
    const { provider, transport } = this.request;
    let read: BodyRead;
    try {
      read = await readBody(response, transport.maxResponseBytes, this.controller.signal);
    } catch (cause) {
      throw this.failure(cause, `${provider}'s answer broke off (${causeText(cause)})`);
    }
    if ('tooLarge' in read) throw this.protocol(`${provider} answered with a body of more than maxResponseBytes (${transport.maxResponseBytes})`);
    if ('undecodable' in read) throw this.protocol(`${provider} answered with a body that is not UTF-8`);
    return { event: 'whole', data: read.text, whole: true };
  }

  close(): void {
    clearTimeout(this.timer);
    this.signal.removeEventListener('abort', this.onAbort);
    // Releases a connection still open (a stream left early), and any read still in flight.
    this.controller.abort(new Error('closed'));
  }

  /** A read, or a rejection once the stream has been silent for idleTimeoutMs or the attempt ends. */
  private idleBounded<T>(read: Promise<T>): Promise<T> {
    const { idleTimeoutMs } = this.request.transport;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => {
      idle = setTimeout(() => reject(Object.assign(new Error('idle'), { idle: true })), idleTimeoutMs);
    });
    return Promise.race([untilAborted(read, this.controller.signal), silence]).finally(() => clearTimeout(idle));
  }

  /** Why the attempt failed: the caller's abort as it is, the timeout as generate's, anything else retryable. */
  private failure(cause: unknown, message: string): ProviderError {
    const { provider, transport } = this.request;
    const { redactor } = transport;
    if (this.signal.aborted) throw this.signal.reason;
    if (this.timedOut) return providerError('model.failed', `${provider} did not answer within ${transport.timeoutMs} ms`, { retryable: false, redactor });
    if ((cause as { idle?: unknown } | null)?.idle === true) {
      return providerError('model.failed', `${provider}'s stream sent nothing for ${transport.idleTimeoutMs} ms (idleTimeoutMs)`, { retryable: true, redactor });
    }
    return providerError('model.failed', message, { retryable: true, redactor });
  }

  private protocol(message: string): ProviderError {
    return providerError('model.protocol', message, { retryable: false, redactor: this.request.transport.redactor });
  }
}
