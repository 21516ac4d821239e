/**
 * canonicalJson's two walks (src/core/tools/canonical-json.ts) must write the same bytes: the
 * fast one (a canonical-order copy written by JSON.stringify) and the iterative one it hands
 * over to. Checked against an independent recursive writer on seeded random values that hit
 * every hand-over: integer-like keys, own `__proto__` members, nesting either side of the
 * fast path's depth limit, null-prototype objects. And a cycle must be caught at its first
 * back edge, not after the fast path has copied its other members at every level it reached.
 */
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

/** RFC 8785 for plain JSON, written the obvious way (recursion is fine at these depths). */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** A small seeded generator, so a failure names a case that reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const KEYS = ['type', 'properties', 'a', 'B', '0', '10', '9', '01', '4294967295', '-1', '__proto__', 'é', '😀', 'ｚ', '', '$ref', 'x y'];
const STRINGS = ['', 'plain', 'quote " \\', '\u0000\u001f', 'é 中文', '😀', '\ud800', '\u2028'];
const NUMBERS = [0, -0, 1, -1.5, 1e21, 1e-7, 0.1, 2 ** 53 + 2, Number.MAX_VALUE];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const roll = next();
  if (depth > 4 || roll < 0.35) return pick<unknown>([...STRINGS, ...NUMBERS, true, false, null]);
  if (roll < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  // Built as JSON.parse builds it, so `__proto__` is an own member, as on the wire.
  const entries = Array.from({ length: Math.floor(next() * 6) }, () => `${JSON.stringify(pick(KEYS))}:${JSON.stringify(randomValue(next, depth + 1)) ?? 'null'}`);
  const parsed = JSON.parse(`{${entries.join(',')}}`) as Record<string, unknown>;
  if (next() < 0.2) return Object.assign(Object.create(null) as object, parsed);
  if (next() < 0.2) parsed['gone'] = undefined;
  return parsed;
}

function nested(levels: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i += 1) value = asArray ? [value, i] : { z: i, a: value };
  return value;
}

export function canonicalFastSuite(h: SuiteHarness): void {
  const { canonicalJson } = h.lib;

  h.describe('canonical JSON: fast and iterative walks agree', () => {
    h.it('writes 400 seeded random values as the reference writer does', () => {
      for (let seed = 1; seed <= 400; seed += 1) {
        const value = randomValue(random(seed), 0);
        h.expect({ seed, json: canonicalJson(value) }).toEqual({ seed, json: reference(value) });
      }
    });

    h.it('orders integer-like keys by code units, as the RFC does, not numerically', () => {
      h.expect(canonicalJson({ 10: 'a', 9: 'b', 1: 'c', b: 'd', $: 'e' })).toBe('{"$":"e","1":"c","10":"a","9":"b","b":"d"}');
      h.expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":2},"a":3}'))).toBe('{"__proto__":{"x":2},"a":3,"b":1}');
    });

    h.it('writes nesting either side of the fast path depth limit the same', () => {
      for (const levels of [100, 158, 159, 160, 161, 162, 400]) {
        for (const asArray of [true, false]) {
          const value = nested(levels, { y: 1, x: [2] }, asArray);
          h.expect({ levels, asArray, json: canonicalJson(value) }).toEqual({ levels, asArray, json: reference(value) });
        }
      }
    });

    h.it('refuses what is not JSON wherever the fast path met it, naming the same path', async () => {
      const deepBad = nested(200, { bad: Number.NaN }, false);
      h.expect(await expectConfigError(h, () => canonicalJson(deepBad), 'json.invalid_value')).toContain('.bad is NaN');
      h.expect(await expectConfigError(h, () => canonicalJson({ b: [1, undefined] }), 'json.invalid_value')).toContain('$.b[1] is undefined');
      h.expect(await expectConfigError(h, () => canonicalJson({ d: new Date(0) }), 'json.invalid_value')).toContain('$.d is a class instance');
    });

    h.it('catches a cycle at its first back edge: the members beside it are read twice at most', async () => {
      let reads = 0;
      const cyclic: Record<string, unknown> = {};
      Object.defineProperty(cyclic, 'a', {
        enumerable: true,
        get: () => {
          reads += 1;
          return Array.from({ length: 100 }, (_, i) => ({ i }));
        },
      });
      cyclic['b'] = cyclic;
      const message = await expectConfigError(h, () => canonicalJson({ root: cyclic }), 'json.invalid_value');
      h.expect(message).toContain('$.root.b refers back to an enclosing value');
      // Once by the fast path (which gives up at the back edge), once by the walk that names it.
      h.expect(reads).toBeLessThanOrEqual(2);
    });
  });
}
