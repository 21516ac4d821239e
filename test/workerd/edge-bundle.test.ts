/**
 * What the edge build ships once a bundler inlines it with every dependency, as a Worker
 * build does: no Ajv, no `new Function`, no `eval`, and no Node builtin, within a size budget.
 * Three cuts, each tree-shaken from dist/edge the way a user's bundler would: the bus alone
 * (`mcp`, `resolveToolset`, `dispatchTool`), the bus plus the engine and its Worker journal, and
 * the whole entry. Only the library's own entry is bundled here (an SDK *server* class would
 * bring the SDK's Ajv along; that is the host's choice, not this library's).
 */
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const entry = path.join(root, 'dist/edge/index.js');

/**
 * Budgets in bytes, gzip'd, about 10% above what was measured (2026-12, minified): the bus
 * 78 KB (255 KB raw: zod ~100 KB and the SDK ~56 KB of it, this library 88 KB), bus + engine
 * 87 KB (282 KB raw, this library 115 KB), everything 107 KB (366 KB raw). A jump past one
 * says a heavy dependency crept in, or tree-shaking stopped working.
 */
const CUTS = [
  { name: 'the bus alone', exports: 'mcp, resolveToolset, dispatchTool', gzipBudget: 86_000 },
  { name: 'the bus and the engine', exports: 'mcp, resolveToolset, dispatchTool, createEngine, defineWorkflow, durableObjectJournal', gzipBudget: 96_000 },
  { name: 'the whole edge entry', exports: '*', gzipBudget: 118_000 },
] as const;

describe.runIf(enabled)('the edge bundle', () => {
  for (const cut of CUTS) {
    it(`${cut.name}: no Ajv, no code generation, no Node builtin, at most ${cut.gzipBudget / 1000} KB gzip'd`, async () => {
      const contents = cut.exports === '*' ? `export * from ${JSON.stringify(entry)};` : `export { ${cut.exports} } from ${JSON.stringify(entry)};`;
      const result = await build({
        stdin: { contents, resolveDir: root, loader: 'js' },
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        conditions: ['workerd', 'worker', 'browser'],
        metafile: true,
        minify: true,
      });
      const bytes = result.outputFiles[0]?.contents ?? new Uint8Array();
      const code = new TextDecoder().decode(bytes);
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((file) => /node_modules\/ajv/.test(file))).toEqual([]);
      expect(inputs.some((file) => file.includes('@cfworker/json-schema'))).toBe(false);
      expect(code).not.toMatch(/new Function\s*\(/);
      expect(code).not.toMatch(/\beval\s*\(/);
      expect(code).not.toMatch(/from\s*"node:|require\("node:/);
      const gzipped = gzipSync(bytes).length;
      console.log(`${cut.name}: ${bytes.length} bytes minified, ${gzipped} gzip'd`);
      expect(gzipped).toBeLessThan(cut.gzipBudget);
    });
  }

  it('tree-shakes: the bus alone is smaller than the bus and the engine', async () => {
    const size = async (names: string) =>
      (await build({ stdin: { contents: `export { ${names} } from ${JSON.stringify(entry)};`, resolveDir: root, loader: 'js' }, bundle: true, write: false, format: 'esm', platform: 'browser', minify: true }))
        .outputFiles[0]?.contents.length ?? 0;
    const bus = await size(CUTS[0].exports);
    expect(bus).toBeLessThan((await size(CUTS[1].exports)) - 15_000);
  });
});
