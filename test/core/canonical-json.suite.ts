/**
 * RFC 8785 canonical JSON in every runtime: the committed vectors (computed once by an
 * independent implementation, see the fixture's "about"), ECMAScript number forms, key
 * order by UTF-16 code units, refusals of what is not JSON, and nesting deeper than any
 * call stack.
 */
import vectors from '../fixtures/hash-vectors.json' with { type: 'json' };
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

const canonical = vectors.canonical as ReadonlyArray<{ readonly label: string; readonly value: unknown; readonly json: string }>;

export function canonicalJsonSuite(h: SuiteHarness): void {
  const { canonicalJson } = h.lib;

  h.describe('canonical JSON (RFC 8785)', () => {
    for (const vector of canonical) {
      h.it(`reproduces the vector: ${vector.label}`, () => {
        h.expect(canonicalJson(vector.value)).toBe(vector.json);
      });
    }

    h.it('writes numbers as ECMAScript does: -0, 1e21, 1e-7, 0.1', () => {
      h.expect([-0, 1e21, 1e20, 1e-7, 1e-6, 0.1, 2 ** 53 + 2].map((n) => canonicalJson(n))).toEqual([
        '0', '1e+21', '100000000000000000000', '1e-7', '0.000001', '0.1', '9007199254740994',
      ]);
    });

    h.it('sorts keys by UTF-16 code units, not by code points or locale', () => {
      h.expect(canonicalJson({ '\uff5a': 1, '\u{1F600}': 2, Z: 3, a: 4, 'é': 5 })).toBe('{"Z":3,"a":4,"é":5,"😀":2,"ｚ":1}');
    });

    h.it('omits members whose value is undefined, like absent ones', () => {
      h.expect(canonicalJson({ b: undefined, a: 1 })).toBe(canonicalJson({ a: 1 }));
    });

    h.it('writes a lone surrogate as JSON.stringify does', () => {
      h.expect(canonicalJson(['\ud800', '\udc00x'])).toBe('["\\ud800","\\udc00x"]');
    });

    h.it('refuses non-finite numbers with json.invalid_value naming the path', async () => {
      for (const bad of [Number.NaN, Infinity, -Infinity]) {
        const schema = { properties: { 'a b': { default: [0, bad] } } };
        const message = await expectConfigError(h, () => canonicalJson(schema), 'json.invalid_value');
        h.expect(message).toContain('$.properties["a b"].default[1]');
      }
    });

    h.it('refuses values that are not JSON', async () => {
      class Point { x = 1; }
      const values: unknown[] = [
        undefined, [1, undefined], () => 1, Symbol('s'), 10n, new Date(0), new Map(), new Point(), { a: [() => 1] },
      ];
      for (const value of values) await expectConfigError(h, () => canonicalJson(value), 'json.invalid_value');
    });

    h.it('sorts keys given in any order, shorter prefixes first', () => {
      const keys = ['b', 'ab', 'a', 'B', 'aa', '_', '1', 'ba'];
      const expected = '{"1":0,"B":0,"_":0,"a":0,"aa":0,"ab":0,"b":0,"ba":0}';
      for (const order of [keys, [...keys].reverse(), [...keys].sort()]) {
        h.expect(canonicalJson(Object.fromEntries(order.map((k) => [k, 0])))).toBe(expected);
      }
    });

    h.it('accepts an object without a prototype as a plain object', () => {
      const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [true, null] });
      h.expect(canonicalJson(bare)).toBe('{"a":[true,null],"b":1}');
    });

    h.it('says what the refused value is, at which path', async () => {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [Number.NaN, '$ is NaN, which JSON cannot represent'],
        [{ a: -Infinity }, '$.a is -Infinity, which JSON cannot represent'],
        [undefined, '$ is undefined, which is not a JSON value'],
        [[undefined], '$[0] is undefined, which is not a JSON value'],
        [{ f: () => 1 }, '$.f is a function, which is not a JSON value'],
        [[1n], '$[0] is a bigint, which is not a JSON value'],
        [{ when: [new Date(0)] }, '$.when[0] is a class instance, not a plain JSON object'],
      ];
      for (const [value, expected] of cases) {
        h.expect(await expectConfigError(h, () => canonicalJson(value), 'json.invalid_value')).toBe(`cannot write canonical JSON: ${expected}`);
      }
    });

    h.it('cuts a key in the path short after 40 characters', async () => {
      const at40 = 'k'.repeat(40);
      h.expect(await expectConfigError(h, () => canonicalJson({ [at40]: { 'x y': Number.NaN } }), 'json.invalid_value')).toBe(
        `cannot write canonical JSON: $.${at40}["x y"] is NaN, which JSON cannot represent`,
      );
      h.expect(await expectConfigError(h, () => canonicalJson({ [`${at40}more`]: Number.NaN }), 'json.invalid_value')).toBe(
        `cannot write canonical JSON: $["${at40}…"] is NaN, which JSON cannot represent`,
      );
    });

    h.it('refuses a cycle but writes a shared subtree once per reference', async () => {
      const shared = { k: 1 };
      h.expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"k":1},"b":[{"k":1}]}');
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = [cyclic];
      const message = await expectConfigError(h, () => canonicalJson(cyclic), 'json.invalid_value');
      h.expect(message).toContain('cycle');
    });

    h.it('serialises 100,000 levels of nesting without exhausting the stack', () => {
      let arrays: unknown = 0;
      let objects: unknown = 0;
      for (let i = 0; i < 100_000; i += 1) {
        arrays = [arrays];
        objects = { k: objects };
      }
      h.expect(canonicalJson(arrays)).toBe(`${'['.repeat(100_000)}0${']'.repeat(100_000)}`);
      h.expect(canonicalJson(objects).length).toBe(100_000 * 6 + 1);
    });
  });
}
