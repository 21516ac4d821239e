/**
 * Issue 8: schemas and values from across the trust boundary that made the previous
 * validator block the host for seconds or minutes, or exhaust the heap. Each shape goes
 * through a real MCP server, in-process and over streamable-http, through resolveToolset and
 * dispatchTool, and must end as a typed result: valid, invalid with a short message, or
 * "too costly". Then the same schema and value are validated directly to pin the work
 * spent, which is deterministic; nothing here measures time.
 */
import { admitSchema } from '../../src/core/schema/admission.js';
import { workLimitFor } from '../../src/core/schema/budget.js';
import type { ToolResult } from '../../src/core/index.js';
import {
  cubicPattern,
  ENUM_MEMBER,
  enumAmplification,
  instanceSize,
  itemsFanOut,
  nestedRepetition,
  patternFanOut,
  shapeServer,
  uniqueRows,
  type Shape,
} from '../fixtures/hostile-schemas.js';
import { flavours } from './flavours.js';
import type { SuiteHarness } from './harness.js';

/** Heavy shapes serialize megabytes over streamable-http; a slow runtime needs the room. */
const HEAVY_MS = 60_000;

export function validationBudgetSuite(h: SuiteHarness): void {
  const { resolveToolset, dispatchTool } = h.lib;

  for (const flavour of flavours(h)) {
    h.describe(`validation budget over ${flavour.name}`, () => {
      const call = async (server: ReturnType<typeof shapeServer>, input: unknown): Promise<ToolResult> => {
        await using source = flavour.open(server.make);
        const toolset = await resolveToolset([source]);
        const outcome = await dispatchTool(toolset, { id: 'budget-1', name: 'shape', input });
        if (outcome.status !== 'done') throw new Error(`expected done, got ${outcome.status}`);
        return outcome.result;
      };
      const output = (shape: Shape) => shapeServer({ output: shape.schema, answer: shape.value });

      h.it("(1) a server's pattern '.*.*.*x' over 100,000 characters: invalid_output, answered", async () => {
        const result = await call(output(cubicPattern()), {});
        h.expect(result).toMatchObject({ isError: true, reason: 'invalid_output' });
        h.expect(String(result.output)).toContain('/text: pattern: must match the pattern ".*.*.*x"');
      }, HEAVY_MS);

      h.it("(1) a model's argument against '^(ы+)+$': invalid_input, no wire call", async () => {
        const shape = nestedRepetition();
        const server = shapeServer({ input: shape.schema });
        const result = await call(server, shape.value);
        h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
        h.expect(String(result.output)).toContain('/q: pattern');
        h.expect(server.calls.count).toBe(0);
        h.expect((await call(server, { q: 'ыыы' })).isError).toBe(false);
        h.expect(server.calls.count).toBe(1);
      });

      h.it('(2) a 1,400-member enum under anyOf, 32 KB of non-members: a short message naming no member', async () => {
        const result = await call(output(enumAmplification()), {});
        h.expect(result).toMatchObject({ isError: true, reason: 'invalid_output' });
        const message = String(result.output);
        h.expect(message.length).toBeLessThan(2_000);
        h.expect(message).toContain('/list0/0: anyOf: matches none of the 20 alternatives');
        h.expect(message).not.toMatch(ENUM_MEMBER);
      });

      h.it('(3) uniqueItems over 5,000 distinct objects of 38 values: valid; one repeat: invalid, named', async () => {
        const distinct = uniqueRows();
        h.expect(await call(output(distinct), {})).toMatchObject({ isError: false, output: distinct.value });
        const repeated = await call(output(uniqueRows(5_000, 38, true)), {});
        h.expect(repeated).toMatchObject({ isError: true, reason: 'invalid_output' });
        h.expect(String(repeated.output)).toContain('/rows: uniqueItems: must not repeat items: items 7 and 5000 are equal');
      }, HEAVY_MS);

      h.it('(10) 500 patternProperties into a fan-out-8189 chain against valid output: too costly, stopped', async () => {
        const result = await call(output(patternFanOut()), {});
        h.expect(result).toMatchObject({ isError: true, reason: 'invalid_output' });
        h.expect(String(result.output)).toContain('budget: validation was too costly and was stopped');
      });

      h.it('(10) 199,990 values each worth a fan-out-8189 chain: too costly, no wire call', async () => {
        const shape = itemsFanOut();
        const server = shapeServer({ input: shape.schema });
        const result = await call(server, shape.value);
        h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
        h.expect(String(result.output)).toContain(`allowance of ${workLimitFor(instanceSize(shape.value))} work units`);
        h.expect(server.calls.count).toBe(0);
      }, HEAVY_MS);

      h.it("(13a) a model's 1e400 (Infinity) or NaN: invalid_input naming the path, no wire call", async () => {
        const server = shapeServer({ input: { type: 'object', properties: { n: { type: 'number' } } } });
        const infinite = await call(server, JSON.parse('{"n": 1e400}'));
        h.expect(infinite).toMatchObject({ isError: true, reason: 'invalid_input' });
        h.expect(String(infinite.output)).toContain('- /n: json: Infinity is not a JSON number');
        const nan = await call(server, { list: [1, Number.NaN] });
        h.expect(String(nan.output)).toContain('- /list/1: json: NaN is not a JSON number');
        h.expect(server.calls.count).toBe(0);
      });
    });
  }

  h.describe('validation budget: work spent', () => {
    const validate = (shape: Shape) => admitSchema(shape.schema, shape.name).validate(shape.value);
    const allowance = (shape: Shape) => workLimitFor(instanceSize(shape.value));

    h.it('(1) patterns finish inside the allowance with the right verdict', () => {
      for (const shape of [cubicPattern(), nestedRepetition()]) {
        const outcome = validate(shape);
        h.expect(outcome).toMatchObject({ valid: false, issues: [{ keyword: 'pattern' }] });
        h.expect(outcome.work).toBeLessThanOrEqual(allowance(shape));
      }
    });

    h.it('(2) the verdict stops at the first non-member: no amplification by the 20 branches', () => {
      const outcome = validate(enumAmplification());
      h.expect(outcome.valid).toBe(false);
      // 1 item × 20 branches × (anyOf, $ref, enum): a few hundred units, not 3,200 × 20 × 1,400.
      h.expect(outcome.work).toBeLessThan(500);
      h.expect(outcome.valid === false && outcome.issues.length).toBe(8);
    });

    h.it('(3) uniqueItems is linear: at most 2 units per unit of size, where pairs would be 12.5 million', () => {
      for (const [shape, valid] of [[uniqueRows(), true], [uniqueRows(5_000, 38, true), false]] as const) {
        const outcome = validate(shape);
        h.expect(outcome.valid).toBe(valid);
        h.expect(outcome.work).toBeLessThanOrEqual(2 * instanceSize(shape.value));
      }
    });

    h.it('a $ref chain nested past 1,000 levels is too costly, one of 900 validates: never a stack overflow', () => {
      const chain = (levels: number) => {
        const $defs: Record<string, unknown> = { [`d${levels}`]: { type: 'number' } };
        for (let i = levels - 1; i >= 0; i -= 1) $defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
        return { $defs, $ref: '#/$defs/d0' };
      };
      h.expect(admitSchema(chain(900), 'chain').validate(5)).toMatchObject({ valid: true, work: 1_803 });
      const deep = admitSchema(chain(1_500), 'chain').validate(5);
      h.expect(deep).toMatchObject({ valid: false, issues: [{ keyword: 'budget' }], work: workLimitFor(1) });
      h.expect(deep.valid === false && deep.issues[0]?.message).toContain('too costly');
    });

    h.it('(10) fan-out shapes stop exactly at their allowance, with one budget issue', () => {
      for (const shape of [patternFanOut(), itemsFanOut()]) {
        const outcome = validate(shape);
        h.expect(outcome).toMatchObject({ valid: false, issues: [{ path: '', keyword: 'budget' }], work: allowance(shape) });
        h.expect(outcome.valid === false && outcome.issues.length).toBe(1);
      }
    });
  });
}
