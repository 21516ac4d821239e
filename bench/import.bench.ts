/**
 * Issue 25's engine-only import: what a fresh process that only runs or resumes workflows
 * pays to import `createEngine`, `fileJournal` (both from `@rulvar/core/engine`) and the
 * testing adapter, against importing the whole Node entry (the MCP client, the SDK and zod
 * with it), in the same run. The sources are built the way tsup builds dist (one esbuild
 * pass, code splitting, dependencies external) into a temporary directory, and each sample
 * is a new `node` process timing its own `import()`, so nothing is cached between samples.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { measured, printTargets, type Row } from './report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 0.4;

export async function benchImport(options: { iterations: number }): Promise<Row[]> {
  // Inside the package (removed after), so the built chunks resolve the SDK and zod from its node_modules.
  const outdir = await mkdtemp(path.join(root, '.bench-import-'));
  try {
    await build({
      entryPoints: { 'node/index': 'src/node/index.ts', 'node/engine': 'src/node/engine.ts', 'testing/index': 'src/testing/index.ts' },
      absWorkingDir: root,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      packages: 'external',
      external: ['node:*'],
      outdir,
      logLevel: 'warning',
    });
    const url = (name: string) => pathToFileURL(path.join(outdir, `${name}.js`)).href;
    const variants = {
      engine: [url('node/engine'), url('testing/index')],
      whole: [url('node/index')],
    };
    const samples: Record<keyof typeof variants, number[]> = { engine: [], whole: [] };
    for (let i = 0; i < options.iterations; i += 1) {
      for (const name of (i % 2 === 0 ? ['engine', 'whole'] : ['whole', 'engine']) as (keyof typeof variants)[]) {
        const code = `const t = performance.now(); await Promise.all(${JSON.stringify(variants[name])}.map((u) => import(u))); process.stdout.write(String(performance.now() - t));`;
        samples[name].push(Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' })));
      }
    }
    const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
    const [engine, whole] = [mid(samples.engine), mid(samples.whole)];
    process.stdout.write(`\nimport in a fresh process (median of ${options.iterations} each)\n`);
    process.stdout.write(`  engine only (createEngine, fileJournal, scripted)  ${engine.toFixed(1).padStart(7)} ms  ${(engine / whole).toFixed(2)}x\n`);
    process.stdout.write(`  the whole Node entry                              ${whole.toFixed(1).padStart(7)} ms  1.00x\n`);
    const rows = [
      measured({
        name: 'engine-only import',
        comparison: '`createEngine`, `fileJournal` (`@rulvar/core/engine`) and `scripted`, imported by a fresh process',
        floorLabel: 'the whole Node entry',
        floor: whole,
        values: [engine],
        target: TARGET,
      }),
    ];
    printTargets(rows);
    return rows;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
