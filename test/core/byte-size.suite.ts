/**
 * The schema byte counter against JSON.stringify itself: on hand-picked edge cases (escapes,
 * surrogates, number forms, members JSON leaves out) and on seeded random values, it must
 * equal `utf8Length(JSON.stringify(x))` exactly; past a `stopAfter` it must say so; and on
 * nesting no call stack survives it must still count.
 */
import { jsonByteLength, schemaBytes, utf8Length } from '../../src/core/schema/byte-size.js';
import type { SuiteHarness } from './harness.js';

const reference = (value: unknown): number => utf8Length(JSON.stringify(value) ?? '');

const EDGE_CASES: readonly unknown[] = [
  null, true, false, 0, -0, 1e21, 1e-7, -1.5e-300, 123456789.125, Number.MAX_VALUE, Number.MIN_VALUE,
  NaN, Infinity, -Infinity,
  // Integers are counted by their digits, not printed: every boundary of a digit count, both signs.
  9, 10, -9, -10, 99, 100, 999_999, 1_000_000, -1_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, -(2 ** 53), 1e20, -1e20,
  '', 'plain', 'quote " backslash \\ slash /', '\u0000\u0001\u001f\u007f', '\b\t\n\f\r\v',
  'é ß ü', '€ 中文 \uffff', '😀 \u{10ffff}', '\ud800', '\udfff', '\udc00\ud800', 'a\ud83dz', '\ud83d\ude00\ud83d',
  [], {}, [undefined, () => 1, Symbol('s'), NaN], { gone: undefined, fn: () => 1, kept: 1 }, { [Symbol('k')]: 1, k: 2 },
  // eslint-disable-next-line no-sparse-arrays -- holes serialize as null
  [1, , 3],
  { '': '', 'key "quoted"\n': ['\u2028\u2029'], nested: { deeper: [{ a: [[]] }, {}] } },
  { type: 'object', properties: { name: { type: 'string', description: 'naïve — “quoted” \u0007' } }, required: ['name'] },
  undefined,
];

export function byteSizeSuite(h: SuiteHarness): void {
  h.describe('schema byte counter', () => {
    h.it('equals utf8Length(JSON.stringify(x)) on the edge cases', () => {
      EDGE_CASES.forEach((value, i) => h.expect({ case: i, bytes: jsonByteLength(value) }).toEqual({ case: i, bytes: reference(value) }));
    });

    h.it('equals utf8Length(JSON.stringify(x)) on 2,000 seeded random values', () => {
      const random = seeded(0x5eed);
      for (let i = 0; i < 2_000; i += 1) {
        const value = randomValue(random, 4);
        h.expect({ run: i, bytes: jsonByteLength(value) }).toEqual({ run: i, bytes: reference(value) });
      }
    });

    h.it('past stopAfter it reports more than the cap; at or under it, the exact count', () => {
      const random = seeded(0xcab);
      for (let i = 0; i < 500; i += 1) {
        const value = randomValue(random, 4);
        const exact = reference(value);
        const cap = Math.floor(random() * (exact + 20));
        const counted = jsonByteLength(value, cap);
        if (exact > cap) h.expect(counted).toBeGreaterThan(cap);
        else h.expect(counted).toBe(exact);
      }
    });

    h.it('counts a value nested 100,000 deep that JSON.stringify cannot write', () => {
      let deep: unknown = 0;
      for (let i = 0; i < 100_000; i += 1) deep = i % 2 === 0 ? [deep] : { k: deep };
      // 50,000 arrays `[…]` (2 bytes) and 50,000 objects `{"k":…}` (6 bytes) around one "0".
      h.expect(jsonByteLength(deep)).toBe(50_000 * 2 + 50_000 * 6 + 1);
    });

    h.it('schemaBytes adds the outputSchema only when there is one', () => {
      const input = { type: 'object' };
      const output = { type: 'object', properties: { ok: { type: 'boolean' } } };
      h.expect(schemaBytes(input, undefined)).toBe(reference(input));
      h.expect(schemaBytes(input, output)).toBe(reference(input) + reference(output));
    });
  });
}

/** A small deterministic PRNG (mulberry32), so a failure names a value that can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Code units a JSON writer treats differently: escapes, each UTF-8 length, both surrogate halves. */
const UNITS = [0x00, 0x08, 0x0a, 0x1f, 0x20, 0x22, 0x2f, 0x5c, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xffff];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e20, 1e-7, 1e-6, 2 ** 53 + 2, -1.7976931348623157e308, 5e-324, NaN, Infinity];

function randomString(random: () => number): string {
  let text = '';
  const length = Math.floor(random() * 12);
  for (let i = 0; i < length; i += 1) {
    // Mostly the interesting units, sometimes anything at all (lone or paired surrogates included).
    const unit = random() < 0.7 ? (UNITS[Math.floor(random() * UNITS.length)] as number) : Math.floor(random() * 0x10000);
    text += String.fromCharCode(unit);
  }
  return text;
}

function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth === 0 || pick < 0.45) {
    const scalar = random();
    if (scalar < 0.4) return randomString(random);
    if (scalar < 0.7) return random() < 0.5 ? (NUMBERS[Math.floor(random() * NUMBERS.length)] as number) : (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    if (scalar < 0.8) return random() < 0.5;
    if (scalar < 0.9) return null;
    return undefined;
  }
  const size = Math.floor(random() * 5);
  if (pick < 0.7) return Array.from({ length: size }, () => randomValue(random, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = 0; i < size; i += 1) object[randomString(random)] = randomValue(random, depth - 1);
  return object;
}
