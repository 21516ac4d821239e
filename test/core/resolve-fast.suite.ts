/**
 * What resolveToolset's fast paths must not change (issue 14):
 * - its toolsetHash, hashed from admission's canonical-order copies, equals toolsetHash() of
 *   the same tools and the hash of an independent canonical writer, whatever path each
 *   schema took (one walk, or the full admission for patterns, references, integer-like keys);
 * - a schema admitted in one walk validates exactly as the full admission's validator does,
 *   issues, order and work units included;
 * - validators compiled on first use still validate the schema as it was when admitted, and
 *   every refusal (a pattern the engine refuses, deep inside) still comes from resolveToolset;
 * - the scratch buffer long texts are encoded into stays within its bound, and digests agree.
 */
import { admitSchema } from '../../src/core/schema/admission.js';
import { scratchBytes, SCRATCH_MAX_BYTES, sha256Hex } from '../../src/core/bus/toolset-hash.js';
import type { ToolDef } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

/** RFC 8785 for plain JSON, written the obvious way: the hashes are checked against it. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** Lowercase hex SHA-256 by WebCrypto, without the library's scratch buffer or memo. */
export async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const plain = (name: string, parameters: unknown, extra: Partial<ToolDef> = {}): ToolDef =>
  ({ name, description: `Tool ${name}.`, parameters, needsApproval: false, execute: () => 'ok', ...extra }) as ToolDef;

/** Schemas meant for every admission path: one walk, patterns, references, integer-like keys, `__proto__`. */
const SCHEMAS: Record<string, unknown> = {
  simple: { type: 'object', properties: { q: { type: 'string', maxLength: 5 }, n: { type: 'integer', minimum: 1 } }, required: ['q'] },
  patterned: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } },
  referencing: { $defs: { s: { type: 'string' } }, type: 'object', properties: { s: { $ref: '#/$defs/s' } } },
  numbered: { type: 'object', properties: { 10: { type: 'string' }, 9: { type: 'number' } } },
  protoKey: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as unknown,
  nested: { allOf: [{ type: 'object' }, { required: ['z'] }], properties: { z: { enum: [1, 'a', null, { b: 2, a: 1 }] } } },
  bool: true,
};

/**
 * Pairs of schemas that differ only in something the full admission must take (an
 * integer-like key inside an annotation), with values valid and invalid in several ways.
 */
const SAME_RESULTS: ReadonlyArray<readonly [unknown, readonly unknown[]]> = [
  [
    { type: 'object', required: ['b', 'a'], additionalProperties: false, properties: { b: { type: 'string', minLength: 2 }, a: { type: 'array', items: { type: 'integer' }, uniqueItems: true } } },
    [{ a: [1, 2], b: 'xy' }, { a: [1, 1, 'x'], b: 'x', c: 1 }, {}, [], 'x'],
  ],
  [
    { anyOf: [{ type: 'string', format: 'email' }, { type: 'number', multipleOf: 0.5 }], not: { const: 2 } },
    ['a@b.co', 'nope', 1.5, 1.3, 2, null],
  ],
  [
    { type: 'object', dependentRequired: { x: ['y', 'z'], w: ['v'] }, dependentSchemas: { y: { required: ['q'] }, a: { maxProperties: 1 } }, unevaluatedProperties: { type: 'boolean' }, properties: { x: {}, y: {} } },
    [{ x: 1, y: 2, z: 3, q: true }, { x: 1, w: 2, a: 3, y: 4 }, { extra: 'no' }],
  ],
  [
    { if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] }, prefixItems: [{ type: 'string' }], oneOf: [{ type: 'object' }, { type: 'array' }] },
    [{ kind: 'a', a: 1 }, { kind: 'a' }, { kind: 'b' }, ['s', 1], [1]],
  ],
];

export function resolveFastSuite(h: SuiteHarness): void {
  const { resolveToolset, toolsetHash, dispatchTool } = h.lib;

  h.describe('resolveToolset fast paths', () => {
    h.it('hashes the same as toolsetHash() and an independent writer, whatever path each schema took', async () => {
      const all = Object.entries(SCHEMAS);
      // Without integer-like keys or `__proto__` the whole toolset has a fast form; with them, none.
      const fastOnly = all.filter(([name]) => name !== 'numbered' && name !== 'protoKey');
      for (const entries of [fastOnly, all]) {
        const tools = entries.map(([name, schema], i) =>
          plain(name, schema, { ...(i % 2 === 0 ? { outputSchema: SCHEMAS['simple'] } : {}), ...(i % 3 === 0 ? { version: `v${i}` } : {}) } as Partial<ToolDef>),
        );
        const resolved = await resolveToolset(tools);
        const tuples = [...tools]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map(({ name, description, parameters, outputSchema, version }) => ({ name, description, parameters, outputSchema, version }));
        const expected = await digest(canonical(tuples));
        h.expect({ tools: tools.length, resolved: resolved.toolsetHash, hashed: await toolsetHash(tools) }).toEqual({ tools: tools.length, resolved: expected, hashed: expected });
      }
    });

    h.it('hashes exactly even when somebody gave every object an inherited toJSON', async () => {
      const tools = [plain('a', SCHEMAS['simple'], { outputSchema: SCHEMAS['nested'] } as Partial<ToolDef>), plain('b', SCHEMAS['simple'])];
      const expected = await toolsetHash(tools);
      // Not enumerable, so nothing else that walks objects notices; removed before anything else runs.
      Object.defineProperty(Object.prototype, 'toJSON', { value: () => 'hijacked', configurable: true, writable: true });
      let resolved: Awaited<ReturnType<typeof resolveToolset>>;
      let direct: string;
      try {
        direct = h.lib.canonicalJson({ b: [1], a: { d: 2, c: 3 } });
        resolved = await resolveToolset(tools);
      } finally {
        delete (Object.prototype as { toJSON?: unknown }).toJSON;
      }
      h.expect(direct).toBe('{"a":{"c":3,"d":2},"b":[1]}');
      h.expect(resolved.toolsetHash).toBe(expected);
    });

    h.it('validates a schema admitted in one walk exactly as the full admission does', () => {
      for (const [i, [schema, values]] of SAME_RESULTS.entries()) {
        const fast = admitSchema(schema, `fast ${i}`);
        // An integer-like key inside an annotation sends this one through the full admission.
        const full = admitSchema({ ...(schema as object), default: { 0: 'x' } }, `full ${i}`);
        for (const value of values) h.expect({ i, value, outcome: fast.validate(value) }).toEqual({ i, value, outcome: full.validate(value) });
      }
    });

    h.it('validates against the schema as admitted, even when its object changes afterwards', async () => {
      const parameters = { type: 'object', properties: { title: { type: 'string', maxLength: 5 } }, required: ['title'] };
      const toolset = await resolveToolset([plain('note', parameters)]);
      // The host (or an in-process server) changes its own object after the toolset is made.
      parameters.properties.title.maxLength = 500;
      const outcome = await dispatchTool(toolset, { id: 'c1', name: 'note', input: { title: 'far too long' } });
      h.expect(outcome.status === 'done' && outcome.result.isError && outcome.result.reason).toBe('invalid_input');
    });

    h.it('refuses a pattern the engine cannot run from resolveToolset, however deep it sits', async () => {
      const deep = { type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string', pattern: '(a)\\1' } } } } } };
      const message = await expectConfigError(h, () => resolveToolset([plain('deep', deep)]), 'schema.unsupported');
      h.expect(message).toContain('/properties/a/items/properties/b/pattern');
    });

    h.it('encodes long texts in a bounded scratch buffer and digests them as WebCrypto does', async () => {
      // ASCII into the scratch; two-byte UTF-8 that fits it; two-byte UTF-8 that cannot (9 MB,
      // whatever size the scratch has grown to); a text longer than the scratch may ever be.
      const texts = ['x'.repeat(100_000), `é${'y'.repeat(200_000)}`, 'é'.repeat(4_500_000), 'z'.repeat(SCRATCH_MAX_BYTES + 1)];
      for (const text of texts) {
        h.expect({ length: text.length, hex: await sha256Hex(text) }).toEqual({ length: text.length, hex: await digest(text) });
        h.expect(scratchBytes()).toBeLessThanOrEqual(SCRATCH_MAX_BYTES);
      }
      h.expect(scratchBytes()).toBeGreaterThan(0);
    });
  });
}
