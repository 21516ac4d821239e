/**
 * The file journal's typed failures, in one place so every path (short holdings, leases, the
 * inbox) says them alike: a count that is not `expectedLength` is `journal.conflict`, and a
 * failing file system is `journal.unavailable` with the cause's message, which names what
 * failed and never what a file holds.
 */
import { RulvarError, describeCause } from '../core/errors.js';

/** What serving an append did: appended, or refused as the run holds another count of entries. */
export type Answer = 'ok' | { readonly conflict: number };

export function conflict(runId: string, has: number, expectedLength: number): RulvarError {
  return new RulvarError('journal.conflict', `run ${JSON.stringify(runId)} has ${has} journal entries, not the ${expectedLength} this append expected`);
}

/** Resolves for `ok`; rejects `journal.conflict` otherwise. */
export function settle(runId: string, answer: Answer, expectedLength: number): void {
  if (answer !== 'ok') throw conflict(runId, answer.conflict, expectedLength);
}

/** Runs `work`, turning a file system error into `journal.unavailable` (a RulvarError passes as it is). */
export async function unavailableOnFailure<T>(runId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (RulvarError.is(error)) throw error;
    throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} is unavailable: ${describeCause(error)}`, { cause: error });
  }
}
