/**
 * `npm run bench`: every comparison in one process, so the ratios come from the same run on
 * the same machine. BENCH_QUICK=1 cuts the iterations for a smoke run.
 *
 *   npm run bench -- --check          exit 1 when a target is missed (after printing them all)
 *   npm run bench -- --write-docs     rewrite docs/benchmarks.md between <!-- bench:start -->
 *                                     and <!-- bench:end --> from this run's rows
 *
 * Writing the figures is opt-in, not the default: a run on a busy laptop or a CI box would
 * otherwise rewrite a committed file on every `npm run bench`, so published figures would be
 * whatever ran last rather than a run someone chose to publish. It is refused under
 * BENCH_QUICK=1, whose few iterations are a smoke test, not figures.
 */
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { benchCalls } from './call.bench.js';
import { benchEngine } from './engine.bench.js';
import { benchFraming } from './framing.bench.js';
import { benchGuards } from './guards.bench.js';
import { benchJournal } from './journal.bench.js';
import { printMachine } from './harness.js';
import { libraryOrigin } from './library.js';
import { missed, writeBenchDocs, type Report } from './report.js';
import { benchSweep } from './sweep.bench.js';

const flags = new Set(process.argv.slice(2));
const check = flags.delete('--check');
const writeDocsBlock = flags.delete('--write-docs');
if (flags.size > 0) {
  process.stderr.write(`bench: unknown argument ${[...flags].join(', ')} (known: --check, --write-docs)\n`);
  process.exit(2);
}
const quick = process.env['BENCH_QUICK'] === '1';
if (quick && writeDocsBlock) {
  process.stderr.write('bench: --write-docs refuses BENCH_QUICK=1 figures; run the full bench to publish\n');
  process.exit(2);
}
const started = performance.now();

printMachine();
process.stdout.write(`lib:   ${libraryOrigin}\n`);
const sweep = await benchSweep(quick ? { warmup: 1, iterations: 3 } : { warmup: 5, iterations: 30 });
const guards = await benchGuards(quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 7 });
const calls = await benchCalls(quick ? { warmup: 1, iterations: 3 } : { warmup: 15, iterations: 25 });
calls.push(...(await (await import('./resolve.bench.js')).benchResolve(quick ? { warmup: 1, iterations: 3 } : { warmup: 3, iterations: 15 }))); // issue 14's resolve and hash rows, reported beside the calls
const engine = await benchEngine(quick ? { warmup: 1, iterations: 3 } : { warmup: 5, iterations: 20 });
const journal = await benchJournal(quick ? { warmup: 1, iterations: 3 } : { warmup: 3, iterations: 20 });
const imports = await (await import('./import.bench.js')).benchImport(quick ? { iterations: 3 } : { iterations: 15 });
// Only with a PostgreSQL server: RULVAR_TEST_POSTGRES_URL, or its binaries to start a throwaway one (else a skip line).
const postgres = await (await import('./postgres.bench.js')).benchPostgres(quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 10 });
// Printed, no target: 1,000 concurrent 3-turn runs across 4 workers, time and appends per second.
await (await import('./fleet.bench.js')).benchFleet(quick ? { runs: 200 } : { runs: 1_000 });
const framing = await benchFraming(quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 5 });
await (await import('./bundle.bench.js')).benchBundle(); // sizes, not times: printed with its target, no timing Row
// Imported late, as before this file collected rows: the hostile fixtures are only loaded once the rest has run.
const hostile = await (await import('./validation.bench.js')).benchValidation(quick ? { warmup: 1, iterations: 3 } : { warmup: 3, iterations: 10 });
process.stdout.write(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

const report: Report = { rows: [...sweep, ...guards, ...calls, ...engine, ...journal, ...imports, ...postgres, ...framing], hostile };
if (writeDocsBlock) {
  await writeBenchDocs(report);
  process.stdout.write('docs/benchmarks.md: bench block rewritten from this run\n');
}
if (check) {
  const misses = missed(report);
  if (misses.length === 0) process.stdout.write('check: every target met\n');
  else {
    process.stdout.write(`check: ${misses.length} target${misses.length === 1 ? '' : 's'} missed\n`);
    for (const row of misses) process.stdout.write(`  ${row.name}: ${(row.ratioMax ?? row.ratio).toFixed(2)}x floor, target <= ${row.target?.toFixed(2) ?? '?'}x\n`);
    process.exitCode = 1;
  }
}
