/**
 * Issue 8's hostile shapes, each validated against its instance by the schema that made the
 * previous validator block for seconds to minutes (or run out of heap), next to a benign
 * schema of the same byte size (only `type` and a description) against the same instance.
 * The benign row is the floor: the pre-pass over the value, which every schema pays. Work
 * units are the verdict pass's; a "budget" outcome is the allowance running out, by design.
 *
 * Validation is timed directly (the compiled schema's `validate`, from the sources): it is
 * synchronous and the same code in every runtime.
 */
import process from 'node:process';
import { admitSchema } from '../src/core/schema/admission.js';
import type { ValidationOutcome } from '../src/core/schema/validate.js';
import { hostileShapes } from '../test/fixtures/hostile-schemas.js';
import { compare, type Stats } from './harness.js';
import type { HostileRow } from './report.js';

/** A schema that checks only the root's type, padded to `bytes` of JSON like the hostile one. */
function benignOfSize(bytes: number): Record<string, unknown> {
  const base = { type: 'object', description: '' };
  return { ...base, description: 'x'.repeat(Math.max(0, bytes - JSON.stringify(base).length)) };
}

function outcomeText(outcome: ValidationOutcome): string {
  return outcome.valid ? 'valid' : `invalid (${outcome.issues[0]?.keyword ?? '?'})`;
}

export async function benchValidation(options: { warmup: number; iterations: number }): Promise<HostileRow[]> {
  const results: HostileRow[] = [];
  const rows: string[] = [];
  for (const shape of hostileShapes()) {
    const bytes = JSON.stringify(shape.schema).length;
    const hostile = admitSchema(shape.schema, shape.name);
    const benign = admitSchema(benignOfSize(bytes), `benign ${shape.name}`);
    const outcomes: ValidationOutcome[] = [];
    const stats: Stats[] = await compare(
      [
        { name: 'hostile', run: async () => void (outcomes[0] = hostile.validate(shape.value)) },
        { name: 'benign', run: async () => void (outcomes[1] = benign.validate(shape.value)) },
      ],
      options,
    );
    const [h, b] = [stats[0], stats[1]];
    const [ho, bo] = [outcomes[0], outcomes[1]];
    if (h === undefined || b === undefined || ho === undefined || bo === undefined) throw new Error('bench produced no result');
    results.push({ shape: shape.name, bytes, hostileMs: h.median, hostileWork: ho.work, outcome: outcomeText(ho), benignMs: b.median, benignWork: bo.work });
    rows.push(
      `| ${shape.name} | ${bytes} | ${h.median.toFixed(1)} ms | ${ho.work} | ${outcomeText(ho)} | ${b.median.toFixed(1)} ms | ${bo.work} | ${(h.median / b.median).toFixed(1)}× |`,
    );
  }
  process.stdout.write('\nvalidation: hostile shapes (issue 8) vs a benign schema of the same byte size, same instance\n\n');
  process.stdout.write('| shape | schema bytes | hostile | work | outcome | benign | work | ratio |\n|---|---|---|---|---|---|---|---|\n');
  process.stdout.write(`${rows.join('\n')}\n`);
  process.stdout.write(`  (medians of ${options.iterations} interleaved runs; work = units spent by the verdict pass)\n`);
  return results;
}
