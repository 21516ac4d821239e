/**
 * The linear-time pattern matcher in every runtime: patterns that freeze a backtracking
 * engine answer correctly within a work bound fixed in advance (instructions × (characters
 * + 1), asserted on the meter, not on a clock); refusals say why; an exhausted meter stops the
 * test by throwing WORK_EXCEEDED; and answers follow code points, not UTF-16 units.
 */
import { WORK_EXCEEDED, WorkMeter } from '../../src/core/schema/budget.js';
import { PatternUnsupportedError, compilePattern, type LinearPattern } from '../../src/core/schema/pattern/index.js';
import { assemble } from '../../src/core/schema/pattern/program.js';
import { CLASS_CHECK_UNITS, WIDE_CLASS_CHECK_UNITS } from '../../src/core/schema/pattern/simulate.js';
import { parse } from '../../src/core/schema/pattern/syntax.js';
import type { SuiteHarness } from './harness.js';

const LONG = 100_000;

/**
 * The meter's bound for one test: each instruction entered at most once per position, and a
 * class check costing CLASS_CHECK_UNITS (WIDE_CLASS_CHECK_UNITS past ASCII) more than a step.
 */
function bound(source: string, text: string): number {
  let positions = 1;
  for (const _ of text) positions += 1;
  const classCost = [...text].every((c) => c.charCodeAt(0) < 128) ? CLASS_CHECK_UNITS : WIDE_CLASS_CHECK_UNITS;
  return assemble(parse(source)).ops.length * positions * (1 + classCost);
}

export function patternSuite(h: SuiteHarness): void {
  /** Tests `text` and checks the answer and that the work spent stayed within the bound. */
  const check = (source: string, text: string, expected: boolean): number => {
    const meter = new WorkMeter(Number.MAX_SAFE_INTEGER);
    h.expect(compilePattern(source).test(text, meter)).toBe(expected);
    h.expect(meter.spent).toBeLessThanOrEqual(bound(source, text));
    return meter.spent;
  };

  const refusal = (source: string): string => {
    try {
      compilePattern(source);
    } catch (error) {
      h.expect(error).toBeInstanceOf(PatternUnsupportedError);
      return (error as Error).message;
    }
    throw new Error(`${source} was not refused`);
  };

  h.describe('pattern matcher (linear time)', () => {
    h.it('answers .*.*.*x on 100,000 characters within its work bound', () => {
      const spent = check('.*.*.*x', 'a'.repeat(LONG), false);
      h.expect(spent).toBe(4 * (LONG + 1)); // four steps alive per position, whatever the length
      check('.*.*.*x', `${'a'.repeat(LONG)}x`, true);
    });

    h.it('answers nested quantifiers that are exponential for backtracking: ^(a+)+$, ^(ы+)+$, ^(ā+)+$, ^([ā-ż]+)+$, ^(😀+)+$', () => {
      for (const [source, unit] of [['^(a+)+$', 'a'], ['^(ы+)+$', 'ы'], ['^(ā+)+$', 'ā'], ['^([ā-ż]+)+$', 'ć'], ['^(😀+)+$', '😀']] as const) {
        check(source, unit.repeat(LONG), true);
        check(source, `${unit.repeat(LONG)}!`, false);
        check(source, `${unit.repeat(LONG)}\uD83D`, false);
      }
    });

    h.it('answers (a|aa)*b and (.*a){20} on long strings within their work bounds', () => {
      check('(a|aa)*b', 'a'.repeat(LONG), false);
      check('(a|aa)*b', `${'a'.repeat(LONG)}b`, true);
      check('(.*a){20}', `${'b'.repeat(LONG)}${'a'.repeat(19)}`, false);
      check('(.*a){20}', `${'ba'.repeat(LONG / 2)}`, true);
      check('^(\\w+\\s?)*$', `${'a'.repeat(LONG)}!`, false);
    });

    h.it('stops at the first match and, anchored at the start, once no thread is left', () => {
      // Counts the positions visited too: an anchored search past its last thread costs nothing
      // per position, so only the number of charges shows that it went on.
      class CountingMeter extends WorkMeter {
        charges = 0;
        override spend(units: number): void {
          this.charges += 1;
          super.spend(units);
        }
      }
      for (const [source, text, expected] of [
        ['a', `a${'b'.repeat(LONG)}`, true],
        ['^a', `b${'a'.repeat(LONG)}`, false],
        ['(?:^a|^b)c', `bd${'c'.repeat(LONG)}`, false],
        ['^(?:a|b)+$', `ab${'c'.repeat(LONG)}`, false],
      ] as const) {
        const meter = new CountingMeter(Number.MAX_SAFE_INTEGER);
        h.expect(compilePattern(source).test(text, meter)).toBe(expected);
        h.expect(meter.charges).toBeLessThanOrEqual(4);
        h.expect(meter.spent).toBeLessThanOrEqual(20);
      }
      // Not anchored: an optional ^, or ^ in only one of the options.
      check('(?:^a)?b', 'xb', true);
      check('(?:^a|b)c', 'xbc', true);
    });

    h.it('keeps counted repetition linear: a skipped optional copy skips the rest of the run', () => {
      // ^.{0,n}$ has n optional copies; past k characters only one of them is alive, not n - k.
      h.expect(check('^.{0,5000}$', 'a'.repeat(5_000), true)).toBeLessThanOrEqual(4 * 5_001);
      h.expect(check('^(?:ab){0,2000}$', 'ab'.repeat(2_000), true)).toBeLessThanOrEqual(4 * 4_001);
      h.expect(check('^[a-z]{3,3000}!', `${'a'.repeat(3_000)}!`, true)).toBeLessThanOrEqual(4 * 3_002);
    });

    h.it('charges a class check more than a step, the same whether or not its cache answered', () => {
      // 2,000 distinct letters: the bounded cache of \\p{L} misses on every one of them.
      const wide = Array.from({ length: 2_000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
      const spent = (pattern: string | LinearPattern, text: string) => {
        const meter = new WorkMeter(Number.MAX_SAFE_INTEGER);
        h.expect((typeof pattern === 'string' ? compilePattern(pattern) : pattern).test(text, meter)).toBe(true);
        return meter.spent;
      };
      const letters = compilePattern('^\\p{L}*$');
      const classes = spent(letters, wide);
      // Deterministic: the same pattern again, its cache now warm, costs what it did cold.
      h.expect(spent(letters, wide)).toBe(classes);
      h.expect(classes).toBeGreaterThanOrEqual(spent('^.*$', wide) + WIDE_CLASS_CHECK_UNITS * 2_000);
      h.expect(spent('^\\p{L}*$', 'a'.repeat(2_000))).toBeLessThan(spent('^.*$', 'a'.repeat(2_000)) + (CLASS_CHECK_UNITS + 1) * 2_000);
    });

    h.it('compiles ( ā? ×5000 )* at once and matches with it', () => {
      const source = `(${'ā?'.repeat(5_000)})*`;
      check(source, 'ā'.repeat(20), true);
      check(`^${source}$`, 'ā'.repeat(200), true);
      check(`^${source}$`, `${'ā'.repeat(200)}a`, false);
    });

    h.it('refuses a program past MAX_PATTERN_STATES before building it: (a{1000}){1000}', () => {
      h.expect(refusal('(a{1000}){1000}')).toContain('states');
      h.expect(refusal(`a{${'9'.repeat(400)}}`)).toContain('states');
      h.expect(refusal('.{0,10000}')).toContain('states');
      check('^.{0,9997}$', 'a'.repeat(9_997), true);
    });

    h.it('refuses a pattern of more than 256 distinct classes before building them all', () => {
      const many = Array.from({ length: 300 }, (_, i) => `[\\u{${(0x4e00 + i).toString(16)}}-\\u{${(0x4e00 + i + 1).toString(16)}}]`).join('|');
      h.expect(refusal(many)).toContain('more than 256 distinct character classes');
      h.expect(() => compilePattern(Array.from({ length: 256 }, (_, i) => `[\\u{${(0x4e00 + i).toString(16)}}]`).join('|'))).not.toThrow();
    });

    h.it('refuses backreferences, lookaround and inline modifiers, saying which', () => {
      h.expect(refusal('(a)\\1')).toContain('backreference');
      h.expect(refusal('(?<n>a)\\k<n>')).toContain('named backreference');
      h.expect(refusal('a(?=b)')).toContain('lookahead');
      h.expect(refusal('a(?!b)')).toContain('lookahead');
      h.expect(refusal('(?<=a)b')).toContain('lookbehind');
      h.expect(refusal('(?<!a)b')).toContain('lookbehind');
      // Native RegExp may or may not know modifiers; either way they are not run.
      refusal('(?i:a)');
    });

    h.it('refuses what native RegExp refuses with the u flag, and groups nested past the limit', () => {
      for (const source of ['(', 'a{2,1}', '\\p{Nope}', 'a**', '\\-', '{1}', '\\00', ']']) {
        h.expect(refusal(source)).toContain('not a valid');
      }
      h.expect(refusal(`${'('.repeat(501)}a${')'.repeat(501)}`)).toContain('nests');
      check(`${'('.repeat(500)}a${')'.repeat(500)}`, 'ba', true);
    });

    h.it('throws WORK_EXCEEDED itself, within one character of the limit', () => {
      const meter = new WorkMeter(10_000);
      let thrown: unknown;
      try {
        compilePattern('.*.*.*x').test('a'.repeat(LONG), meter);
      } catch (error) {
        thrown = error;
      }
      h.expect(thrown).toBe(WORK_EXCEEDED);
      h.expect(meter.spent).toBeGreaterThan(10_000);
      h.expect(meter.spent).toBeLessThanOrEqual(10_000 + bound('.*.*.*x', ''));
    });

    h.it('gives fresh answers after an abandoned test and from one text to the next', () => {
      const pattern = compilePattern('^(?:ab|a)+c$');
      h.expect(() => pattern.test(`${'ab'.repeat(1_000)}c`, new WorkMeter(50))).toThrow();
      const meter = new WorkMeter(Number.MAX_SAFE_INTEGER);
      h.expect(pattern.test('abac', meter)).toBe(true);
      h.expect(pattern.test('abab', meter)).toBe(false);
      h.expect(pattern.test('aac', meter)).toBe(true);
      h.expect(pattern.test('c', meter)).toBe(false);
    });

    h.it('reads text and pattern by code point: surrogate pairs are one character, lone halves their own', () => {
      check('^.$', '😀', true);
      check('^..$', '😀', false);
      check('^.$', '\uD83D', true);
      check('\\uD83D', '😀', false);
      check('\\uDE00', '😀', false);
      check('^\\uD83D\\uDE00$', '😀', true);
      check('^\\u{1F600}{2}$', '😀😀', true);
      check('^😀{2}$', '😀😀', true);
      check('^[^a]$', '😀', true);
      check('^\\P{L}\\p{L}$', '😀ы', true);
    });

    h.it('applies anchors to the whole input and \\b to ASCII word characters', () => {
      check('^$', '', true);
      check('^a$', 'a\nb', false);
      check('a$', 'a\n', false);
      check('\\bы', ' ы', false);
      check('\\Bы', ' ы', true);
      check('\\bcat\\b', 'a cat.', true);
      check('\\bcat\\b', 'concat', false);
    });
  });
}
