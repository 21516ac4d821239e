/**
 * `npm run bench`: every comparison in one process, so the ratios come from the same run on
 * the same machine. BENCH_QUICK=1 cuts the iterations for a smoke run.
 */
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { benchCalls } from './call.bench.js';
import { benchGuards } from './guards.bench.js';
import { printMachine } from './harness.js';
import { libraryOrigin } from './library.js';
import { benchSweep } from './sweep.bench.js';

const quick = process.env['BENCH_QUICK'] === '1';
const started = performance.now();

printMachine();
process.stdout.write(`lib:   ${libraryOrigin}\n`);
await benchSweep(quick ? { warmup: 1, iterations: 3 } : { warmup: 5, iterations: 30 });
await benchGuards(quick ? { warmup: 1, iterations: 2 } : { warmup: 1, iterations: 7 });
await benchCalls(quick ? { warmup: 1, iterations: 3 } : { warmup: 15, iterations: 25 });
await (await import('./validation.bench.js')).benchValidation(quick ? { warmup: 1, iterations: 3 } : { warmup: 3, iterations: 10 });
process.stdout.write(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
