/**
 * One model turn: the adapter called with the run's signal, retried with backoff while the
 * error says it is retryable, the answer checked. What leaves is a response or a RulvarError
 * (`model.failed`, or `run.aborted` when the run was stopped).
 */
import { abortableSleep } from '../async.js';
import { RulvarError } from '../errors.js';
import { checkResponse, isRetryable, modelFailed, type ModelAdapter, type ModelRequest, type ModelResponse } from './model.js';
import type { RetryPolicy } from './types.js';

const DEFAULT_RETRIES = 2;
const DEFAULT_BASE_DELAY_MS = 250;
/** A host may ask for more, not for unbounded: a run must end. */
const MAX_RETRIES = 10;
const MAX_DELAY_MS = 30_000;

export function callModel(adapter: ModelAdapter, request: ModelRequest, signal: AbortSignal, policy: RetryPolicy = {}): Promise<ModelResponse> {
  if (signal.aborted) return Promise.reject(aborted(signal));
  // The first attempt runs through no async frame of its own: most turns never retry, and on a
  // fast adapter that frame cost as much as the rest of the turn's bookkeeping.
  let first: Promise<unknown>;
  try {
    first = Promise.resolve(adapter.generate(request, signal));
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.then(
    (raw) => checked(adapter, request, raw),
    (failure: unknown) => retrying(adapter, request, signal, policy, failure),
  );
}

/** Attempts after the first: `failure` is what the latest one threw. */
async function retrying(adapter: ModelAdapter, request: ModelRequest, signal: AbortSignal, policy: RetryPolicy, failure: unknown): Promise<ModelResponse> {
  const retries = Math.min(policy.maxRetries ?? DEFAULT_RETRIES, MAX_RETRIES);
  const base = policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  for (let attempt = 0; ; attempt += 1) {
    if (signal.aborted) throw aborted(signal);
    if (!isRetryable(failure) || attempt >= retries) throw modelFailed(adapter.id, request.model, failure);
    await abortableSleep(Math.min(base * 2 ** attempt * (0.5 + Math.random() / 2), MAX_DELAY_MS), signal, () => aborted(signal));
    if (signal.aborted) throw aborted(signal);
    let raw: unknown;
    try {
      raw = await adapter.generate(request, signal);
    } catch (error) {
      failure = error;
      continue;
    }
    return checked(adapter, request, raw);
  }
}

/** An answer that is no response is the adapter failing, never retried. */
function checked(adapter: ModelAdapter, request: ModelRequest, raw: unknown): ModelResponse {
  try {
    return checkResponse(raw);
  } catch (error) {
    throw modelFailed(adapter.id, request.model, error);
  }
}

function aborted(signal: AbortSignal): RulvarError {
  return RulvarError.is(signal.reason) ? signal.reason : new RulvarError('run.aborted', 'the run was aborted');
}
