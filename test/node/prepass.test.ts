/**
 * The validator's prepass (src/core/schema/validator/prepass.ts): a small plain value is
 * measured by a recursive first try, anything else by the full walk. Both must give the size
 * the work allowance grows with (values, plus string and key characters) exactly, and what is
 * refused must still be refused by the full walk with the path and message it names.
 */
import { describe, expect, it } from 'vitest';
import { measureInstance } from '../../src/core/schema/validator/prepass.js';

/** The size by definition: one per value, plus every string's and key's length. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return 1 + value.length;
  if (typeof value !== 'object' || value === null) return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + sizeOf(item), 1);
  return Object.entries(value).reduce((sum, [key, member]) => sum + key.length + sizeOf(member), 1);
}

/** A seeded value: nesting up to `depth`, about `width` members a level. */
function generated(seed: number, depth: number, width: number): unknown {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const make = (level: number): unknown => {
    const pick = next();
    if (level >= depth || pick < 0.3) return [null, true, 1.5, -0, 'text', 'ы😀'][Math.floor(next() * 6)];
    const n = Math.floor(next() * width);
    if (pick < 0.6) return Array.from({ length: n }, () => make(level + 1));
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}-${Math.floor(next() * 100)}`, make(level + 1)]));
  };
  return make(0);
}

describe('measureInstance', () => {
  it('gives the defined size for small, deep and large plain values alike', () => {
    const values = [
      ...Array.from({ length: 200 }, (_, seed) => generated(seed + 1, 6, 5)),
      generated(7, 30, 3), // deeper than the recursive try takes
      Array.from({ length: 5_000 }, (_, i) => ({ i, s: `v${i}` })), // more values than it takes
      Object.create(null) as object,
    ];
    for (const value of values) expect(measureInstance(value)).toEqual({ ok: true, size: sizeOf(value) });
  });

  it('refusals still name where and why, whichever path found them', () => {
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic['a'] as unknown[]).push(cyclic);
    let deep: unknown = 1;
    for (let i = 0; i < 201; i += 1) deep = [deep];
    const cases: [unknown, string, RegExp][] = [
      [{ a: [0, Number.NaN] }, '/a/1', /NaN is not a JSON number/],
      [{ a: { b: undefined } }, '/a/b', /undefined is not a JSON value/],
      [[new Date(0)], '/0', /class instance/],
      [cyclic, '/a/1', /contains itself/],
      [deep, '', /nests deeper than 200 levels/],
    ];
    for (const [value, path, message] of cases) {
      const measured = measureInstance(value);
      expect(measured.ok).toBe(false);
      if (!measured.ok) {
        if (path !== '') expect(measured.issue.path).toBe(path);
        expect(measured.issue.message).toMatch(message);
      }
    }
  });
});
