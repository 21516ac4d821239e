/**
 * One model turn: the adapter called with the run's signal, retried with backoff while the
 * error says it is retryable, the answer checked. Each attempt is bounded by `timeoutMs`
 * whatever the adapter does: past it, the attempt's signal aborts and the attempt counts as a
 * retryable failure. What leaves is a response or a RulvarError (`model.failed`, or
 * `run.aborted` when the run was stopped).
 */
import { abortableSleep } from '../async.js';
import { RulvarError } from '../errors.js';
import { checkResponse, isRetryable, modelFailed } from './model.js';
import { redactAnswer, redactText } from '../model/redact-answer.js';
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../model/types.js';
import { streamedAnswer } from './model-stream.js';
import type { RetryPolicy } from './types.js';
import { refTimer } from '../timers.js';

const DEFAULT_RETRIES = 2;
const DEFAULT_BASE_DELAY_MS = 250;
/** A host may ask for more, not for unbounded: a run must end. */
const MAX_RETRIES = 10;
const MAX_DELAY_MS = 30_000;

/** Receives a streamed turn's deltas, scrubbed, with the attempt they belong to (0 for the first). */
export type DeltaListener = (delta: ModelDelta, attempt: number) => void;

export function callModel(adapter: ModelAdapter, request: ModelRequest, signals: CallSignals, policy: RetryPolicy, timeoutMs: number, onDelta?: DeltaListener): Promise<ModelResponse> {
  const signal = signals.run;
  if (signal.aborted) return Promise.reject(aborted(signal));
  // The first attempt runs through no async frame of its own: most turns never retry, and on a
  // fast adapter that frame cost as much as the rest of the turn's bookkeeping.
  return attempt(adapter, request, signals, timeoutMs, onDelta, 0).then(
    (raw) => checked(adapter, request, raw),
    (failure: unknown) => retrying(adapter, request, signals, policy, timeoutMs, failure, onDelta),
  );
}

/**
 * What one agent's model calls share, as they come one after another. A signal tied to the
 * run's, until a call times out and aborts it (later calls get a fresh one). And one timer
 * for the bound, armed by the first call and re-armed only when it fires early for the call
 * then in flight: a fast call costs no timer of its own (a timer and a controller per call
 * cost twice the rest of a fast turn). The timer keeps a Node process alive only while a call
 * is in flight, and `close` ends it with the agent.
 */
export class CallSignals {
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the call in flight times out, and what then ends it (undefined: none in flight). */
  private deadline = 0;
  private expire: (() => void) | undefined;

  constructor(readonly run: AbortSignal) {}

  current(): AbortController {
    let controller = this.controller;
    if (controller === undefined || controller.signal.aborted) {
      const fresh = new AbortController();
      if (this.run.aborted) fresh.abort(this.run.reason);
      else this.run.addEventListener('abort', () => fresh.abort(this.run.reason), { once: true });
      this.controller = controller = fresh;
    }
    return controller;
  }

  /** A call begins: `expire` runs if it is still in flight `ms` from now. */
  begin(ms: number, expire: () => void): void {
    this.deadline = Date.now() + ms;
    this.expire = expire;
    if (this.timer === undefined) this.arm(ms);
    else refTimer(this.timer, true);
  }

  end(): void {
    this.expire = undefined;
    if (this.timer !== undefined) refTimer(this.timer, false);
  }

  close(): void {
    this.expire = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(wait: number): void {
    this.timer = setTimeout(this.check, wait);
  }

  private readonly check = (): void => {
    this.timer = undefined;
    const expire = this.expire;
    if (expire === undefined) return;
    const left = this.deadline - Date.now();
    if (left > 0) return this.arm(left);
    this.expire = undefined;
    expire();
  };
}


/**
 * One `generate`, or one stream when the adapter can (model-stream.ts), settled by `timeoutMs`
 * at the latest whatever the adapter does: past it the call's signal aborts and the attempt
 * fails retryably. A settled attempt's late deltas reach no listener.
 */
function attempt(adapter: ModelAdapter, request: ModelRequest, signals: CallSignals, timeoutMs: number, onDelta: DeltaListener | undefined, tries: number): Promise<unknown> {
  const controller = signals.current();
  return new Promise((resolve, reject) => {
    let settled = false;
    signals.begin(timeoutMs, () => {
      if (settled) return;
      settled = true;
      const error = Object.assign(new Error(`no answer within ${timeoutMs} ms (modelCallMs)`), { retryable: true });
      controller.abort(error);
      reject(error);
    });
    let answer: Promise<unknown>;
    try {
      const emit = onDelta === undefined ? undefined : (delta: ModelDelta) => settled || onDelta(delta, tries);
      answer = adapter.stream === undefined ? Promise.resolve(adapter.generate(request, controller.signal)) : streamedAnswer(adapter, request, controller.signal, emit);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (value) => {
        if (settled) return;
        settled = true;
        signals.end();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        signals.end();
        reject(error);
      },
    );
  });
}

/** Attempts after the first: `failure` is what the latest one threw. */
async function retrying(adapter: ModelAdapter, request: ModelRequest, signals: CallSignals, policy: RetryPolicy, timeoutMs: number, failure: unknown, onDelta: DeltaListener | undefined): Promise<ModelResponse> {
  const signal = signals.run;
  const retries = Math.min(policy.maxRetries ?? DEFAULT_RETRIES, MAX_RETRIES);
  const base = policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  for (let tries = 0; ; tries += 1) {
    if (signal.aborted) throw aborted(signal);
    if (!isRetryable(failure) || tries >= retries) throw modelFailed(adapter.id, request.model, failure, redactText(adapter));
    await abortableSleep(Math.min(base * 2 ** tries * (0.5 + Math.random() / 2), MAX_DELAY_MS), signal, () => aborted(signal));
    if (signal.aborted) throw aborted(signal);
    let raw: unknown;
    try {
      raw = await attempt(adapter, request, signals, timeoutMs, onDelta, tries + 1);
    } catch (error) {
      failure = error;
      continue;
    }
    return checked(adapter, request, raw);
  }
}

/** An answer that is no response is the adapter failing, never retried; its declared secrets are scrubbed first. */
function checked(adapter: ModelAdapter, request: ModelRequest, raw: unknown): ModelResponse {
  try {
    return checkResponse(redactAnswer(adapter, raw));
  } catch (error) {
    throw modelFailed(adapter.id, request.model, error, redactText(adapter));
  }
}

function aborted(signal: AbortSignal): RulvarError {
  return RulvarError.is(signal.reason) ? signal.reason : new RulvarError('run.aborted', 'the run was aborted');
}
