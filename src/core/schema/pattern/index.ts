/**
 * The pattern matcher the validator and admission use for JSON Schema's `pattern` and
 * `patternProperties`: ECMA-262 with the `u` flag, searched unanchored, answered in time
 * linear in the text (times the pattern's program size), with no code generation.
 *
 * `compilePattern(source)` compiles or throws PatternUnsupportedError saying why (invalid,
 * backreferences, lookaround, too large once expanded). `test(text, meter)` answers whether
 * the pattern matches anywhere in `text`, spending work units from `meter` as it goes (and
 * throwing WORK_EXCEEDED through it when over).
 */
import type { WorkMeter } from '../budget.js';
import { assemble } from './program.js';
import { PatternMatcher } from './simulate.js';
import { parse } from './syntax.js';

export { PatternUnsupportedError } from './tree.js';

export interface LinearPattern {
  readonly source: string;
  /** Instructions of the compiled program (what a test costs per character, at most). */
  readonly states: number;
  /** Distinct character classes it holds (each a native RegExp). */
  readonly classes: number;
  test(text: string, meter: WorkMeter): boolean;
}

export function compilePattern(source: string): LinearPattern {
  return new PatternMatcher(source, assemble(parse(source)));
}
