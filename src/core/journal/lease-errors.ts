/**
 * What every store's lease says the same way: the request checked before anything is
 * written, and the two refusals (spec/runtime.md, "One writer per run: leases").
 */
import { ConfigError, RulvarError } from '../errors.js';
import type { LeaseRequest } from './store.js';

/** Longest lease a store is asked for: one timer's reach, as the holder renews on a timer. */
export const MAX_LEASE_MS = 2 ** 31 - 1;
const MAX_HOLDER_CHARS = 200;

export function checkLeaseRequest(request: LeaseRequest): LeaseRequest {
  const holder: unknown = request?.holder;
  const ms: unknown = request?.ms;
  if (typeof holder !== 'string' || holder.length === 0 || holder.length > MAX_HOLDER_CHARS) {
    throw new ConfigError('config.invalid_value', `a lease needs a holder id of 1 to ${MAX_HOLDER_CHARS} characters`);
  }
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 1 || ms > MAX_LEASE_MS) {
    throw new ConfigError('config.invalid_value', `a lease lasts a whole number of milliseconds from 1 to ${MAX_LEASE_MS}, not ${String(ms)}`);
  }
  return { holder, ms };
}

export function runClaimed(runId: string): RulvarError {
  return new RulvarError('run.claimed', `run ${JSON.stringify(runId)} is held by another live engine; nothing was requested or run`);
}

export function leaseLost(runId: string, holder: string): RulvarError {
  return new RulvarError('run.lease_lost', `the lease of engine ${holder} on run ${JSON.stringify(runId)} passed to another holder; nothing more was written`);
}
