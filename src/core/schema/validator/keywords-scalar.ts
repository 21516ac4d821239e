/**
 * Keywords on numbers and strings: bounds, multipleOf, lengths (in code points, not UTF-16
 * units), pattern and format. A keyword whose value has the wrong shape (`maxLength: "10"`)
 * is ignored rather than refused: real servers ship such schemas, and the oracle never
 * agreed on what they mean anyway.
 */
import type { SchemaObject } from '../walk.js';
import type { CheckList, CompileContext } from './checklist.js';
import { FORMATS } from './formats/index.js';
import { quote } from './messages.js';
import { isMultipleOf, multipleOfCost } from './multiple-of.js';
import type { Check } from './node.js';
import type { Run } from './run.js';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function compileNumberKeywords(schema: SchemaObject, list: CheckList): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  // draft-04 spelled exclusivity as a boolean beside minimum/maximum.
  const bound = (limit: unknown, exclusive: unknown, keyword: string, below: boolean): void => {
    if (!isNumber(limit)) return;
    const strict = exclusive === true;
    const word = below ? (strict ? 'greater than' : 'at least') : strict ? 'less than' : 'at most';
    const fails = below ? (v: number) => (strict ? v <= limit : v < limit) : (v: number) => (strict ? v >= limit : v > limit);
    list.numbers.push(numberCheck(fails, keyword, `must be ${word} ${limit}`));
  };
  bound(minimum, exclusiveMinimum, 'minimum', true);
  bound(maximum, exclusiveMaximum, 'maximum', false);
  if (isNumber(exclusiveMinimum)) bound(exclusiveMinimum, true, 'exclusiveMinimum', true);
  if (isNumber(exclusiveMaximum)) bound(exclusiveMaximum, true, 'exclusiveMaximum', false);
  if (isNumber(multipleOf) && multipleOf > 0) {
    list.numbers.push((value: number, at, run) => {
      run.meter.spend(multipleOfCost(value, multipleOf));
      if (isMultipleOf(value, multipleOf)) return true;
      run.fail(at, 'multipleOf', () => `must be a multiple of ${multipleOf}`);
      return false;
    });
  }
}

function numberCheck(fails: (value: number) => boolean, keyword: string, message: string): Check {
  return (value: number, at, run) => {
    if (!fails(value)) return true;
    run.fail(at, keyword, () => `${message} (is ${value})`);
    return false;
  };
}

export function compileStringKeywords(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const { minLength, maxLength, pattern, format } = schema;
  const min = isNumber(minLength) ? minLength : 0;
  const max = isNumber(maxLength) ? maxLength : Infinity;
  if (min > 0 || max < Infinity) {
    list.strings.push((value: string, at, run) => {
      const length = lengthBetween(value, min, max, run);
      if (length === undefined) return true;
      run.fail(at, length < min ? 'minLength' : 'maxLength', () =>
        length < min ? `must be at least ${min} characters long (is ${length})` : `must be at most ${max} characters long (is ${length})`,
      );
      return false;
    });
  }
  if (typeof pattern === 'string') {
    const compiled = cx.pattern(pattern, `${pointer}/pattern`);
    list.strings.push((value: string, at, run) => {
      if (compiled.test(value, run.meter)) return true;
      run.fail(at, 'pattern', () => `must match the pattern ${quote(pattern)}`);
      return false;
    });
  }
  const check = typeof format === 'string' ? FORMATS.get(format) : undefined;
  if (check !== undefined) {
    list.strings.push((value: string, at, run) => {
      if (check(value, run.meter)) return true;
      run.fail(at, 'format', () => `must be a valid ${format as string}`);
      return false;
    });
  }
}

/**
 * undefined when `text` has between `min` and `max` code points; otherwise its length in
 * code points. Counting costs a pass over the string, so it is skipped whenever the UTF-16
 * length decides alone (code points ≤ units ≤ 2 × code points).
 */
function lengthBetween(text: string, min: number, max: number, run: Run): number | undefined {
  const units = text.length;
  if (units >= 2 * min && units <= max) return undefined;
  run.meter.spend(units);
  let length = 0;
  for (let i = 0; i < units; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < units) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    length += 1;
  }
  return length >= min && length <= max ? undefined : length;
}
