/**
 * The JournalStore contract against durableObjectJournal in a real Durable Object
 * (fixtures/journal-contract-worker.ts), on the SQLite and the KV storage backends, under
 * plain Miniflare. Each worker-side case is reported as its own test here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullName, type CaseResult } from './harness.js';
import { objectFetch } from './object-fetch.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const outfile = path.join(here, '.bundle', 'journal-contract-worker.js');

/** Under `npm test` (RULVAR_TEST_DIST=1) the Worker runs the built package, as core.test.ts does. */
const builtPackage: Plugin = {
  name: 'rulvar-dist',
  setup(b) {
    b.onResolve({ filter: /\/src\/(edge|testing)\/index\.js$/ }, (args) => ({
      path: path.join(root, 'dist', /\/src\/(edge|testing)\/index\.js$/.exec(args.path)?.[1] ?? 'edge', 'index.js'),
    }));
  },
};

await build({
  entryPoints: [path.join(here, 'fixtures', 'journal-contract-worker.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  logLevel: 'warning',
  plugins: process.env['RULVAR_TEST_DIST'] === '1' ? [builtPackage] : [],
});
const persist = await mkdtemp(path.join(tmpdir(), 'rulvar-do-contract-'));
afterAll(() => rm(persist, { recursive: true, force: true }));

for (const [backend, useSQLite] of [['SQLite-backed', true], ['KV-backed', false]] as const) {
  const mf = new Miniflare({
    modules: true,
    scriptPath: outfile,
    compatibilityDate: '2026-04-01',
    durableObjects: { CONTRACT: { className: 'ContractRun', useSQLite } },
    durableObjectsPersist: path.join(persist, backend),
  });
  const object = objectFetch(mf, 'contract');
  const paths = (await (await object('http://contract/cases')).json()) as string[][];
  const results = new Map<string, CaseResult>();

  describe(`${backend} Durable Object`, () => {
    beforeAll(async () => {
      const res = await object('http://contract/run', { method: 'POST' });
      if (!res.ok) throw new Error(`POST /run answered ${res.status}: ${await res.text()}`);
      for (const result of (await res.json()) as CaseResult[]) results.set(result.name, result);
    }, 300_000);
    afterAll(() => mf.dispose());

    for (const casePath of paths) {
      it(casePath.slice(1).join(' > '), () => {
        const result = results.get(fullName(casePath));
        expect(result, 'the object returned no result for this case').toBeDefined();
        if (result?.ok === false) throw Object.assign(new Error(result.error?.message ?? 'failed in workerd'), { stack: result.error?.stack });
      });
    }
  });
}
