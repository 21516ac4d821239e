/**
 * The work budget every validation runs under. Validation is synchronous, so no timer or
 * signal can stop it once it starts: the only bound that holds is one it checks itself.
 * Every step that can repeat (a keyword applied to a value, a pattern state advanced over a
 * character, a value hashed for `uniqueItems` or `enum`) spends units from one meter; past
 * the limit the whole validation stops with a verdict that says it was too costly.
 *
 * The limit is linear in the size of the value being validated (see `workLimitFor`), so a
 * large honest value gets a proportionally larger allowance, and capped, so no value can buy
 * an unbounded one.
 */
import { VALIDATION_BASE_WORK, VALIDATION_MAX_WORK, VALIDATION_WORK_PER_UNIT } from './limits.js';

/** Thrown (one shared instance, no stack captured) when a meter runs past its limit. */
export const WORK_EXCEEDED: unique symbol = Symbol('rulvar.workExceeded');

export class WorkMeter {
  spent = 0;

  constructor(readonly limit: number) {}

  /** Charges `units`; throws WORK_EXCEEDED once the total passes the limit. */
  spend(units: number): void {
    this.spent += units;
    if (this.spent > this.limit) throw WORK_EXCEEDED;
  }
}

/**
 * The allowance for one validation of a value whose size is `sizeUnits` (values plus string
 * and key characters, as measured before validating).
 */
export function workLimitFor(sizeUnits: number): number {
  return Math.min(VALIDATION_MAX_WORK, VALIDATION_BASE_WORK + VALIDATION_WORK_PER_UNIT * sizeUnits);
}

export function isWorkExceeded(error: unknown): error is typeof WORK_EXCEEDED {
  return error === WORK_EXCEEDED;
}
