/**
 * PLACEHOLDER (being replaced by the linear-time matcher): the contract the validator and
 * admission build against.
 *
 * `compilePattern(source)` compiles an ECMA-262 `u`-flag pattern (as JSON Schema's `pattern`
 * and `patternProperties` use them: unanchored, no flags) or throws PatternUnsupportedError
 * saying why. `test(text, meter)` answers whether the pattern matches anywhere in `text`,
 * spending work units from `meter` (and throwing WORK_EXCEEDED through it when over).
 */
import type { WorkMeter } from '../budget.js';

export interface LinearPattern {
  readonly source: string;
  test(text: string, meter: WorkMeter): boolean;
}

export class PatternUnsupportedError extends Error {
  override readonly name = 'PatternUnsupportedError';
}

export function compilePattern(source: string): LinearPattern {
  let native: RegExp;
  try {
    native = new RegExp(source, 'u');
  } catch {
    throw new PatternUnsupportedError('is not a valid u-flag regular expression');
  }
  return {
    source,
    test(text, meter) {
      meter.spend(text.length + 1);
      return native.test(text);
    },
  };
}
