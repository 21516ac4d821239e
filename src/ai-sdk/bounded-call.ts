/**
 * One call of the model object, bounded whatever the object does: the signal it is given
 * aborts when the run's does or when `timeoutMs` passes, and every wait on it (the call, each
 * read of its stream) is raced against that signal too, since a model object is the host's
 * code and may ignore its signal, never settle, or throw before returning a promise.
 */
import { raceSignal } from '../core/async.js';
import type { Redactor } from '../core/secrets/redactor.js';
import { providerError, type ProviderError } from '../adapters/errors.js';
import { thrownByModel } from './errors.js';

export class BoundedCall {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private timedOut = false;
  private readonly onAbort = () => this.controller.abort(this.run.reason);

  constructor(
    private readonly run: AbortSignal,
    private readonly timeoutMs: number,
    private readonly name: string,
    private readonly redactor: Redactor,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(this.timeout());
    }, timeoutMs);
    if (run.aborted) this.onAbort();
    else run.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The signal the model object is given: the run's, or this call's timeout. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** `start()`'s promise raced against the signal; a synchronous throw is a rejection like any other. */
  invoke<T>(start: () => PromiseLike<T>): Promise<T> {
    let work: Promise<T>;
    try {
      work = Promise.resolve(start());
    } catch (error) {
      work = Promise.reject(error);
    }
    return this.race(work);
  }

  race<T>(work: Promise<T>): Promise<T> {
    return raceSignal(work, this.controller.signal, () => new Error('aborted')).catch((error: unknown) => {
      throw this.failure(error);
    });
  }

  /**
   * What a failure of this call is: the run's abort reason as it is (the engine reads it as
   * the run stopping), this call's timeout, or what the model threw, typed and scrubbed.
   */
  failure(error: unknown): unknown {
    if (this.run.aborted) return this.run.reason;
    if (this.timedOut) return this.timeout();
    return thrownByModel(error, this.name, this.redactor);
  }

  /** A malformed answer: `model.protocol`, never retried (the same model answers the same way). */
  protocol(what: string): ProviderError {
    return providerError('model.protocol', `${this.name} ${what}`, { retryable: false, redactor: this.redactor });
  }

  /**
   * An answer the provider itself says is not whole (a stream cut before its finish, a finish
   * of `error` or `interrupted`): `model.failed`, retryable, as the streaming contract makes a cut stream.
   */
  incomplete(what: string): ProviderError {
    return providerError('model.failed', `${this.name} ${what}`, { retryable: true, redactor: this.redactor });
  }

  close(): void {
    clearTimeout(this.timer);
    this.run.removeEventListener('abort', this.onAbort);
  }

  private timeout(): ProviderError {
    return providerError('model.failed', `${this.name} did not answer within ${this.timeoutMs} ms (timeoutMs)`, { retryable: false, redactor: this.redactor });
  }
}
