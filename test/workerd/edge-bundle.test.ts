/**
 * What the edge build ships once a bundler inlines it with every dependency, as a Worker
 * build does: no Ajv, no `new Function`, no `eval`, and no Node builtin. Only the library's
 * own entry is bundled here (an SDK *server* class would bring the SDK's Ajv along; that is
 * the host's choice, not this library's).
 */
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

describe.runIf(enabled)('the edge bundle', () => {
  it('contains no Ajv and no code generation, and fits a Worker', async () => {
    const result = await build({
      entryPoints: [path.join(root, 'dist/edge/index.js')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      metafile: true,
      minify: true,
    });
    const code = result.outputFiles[0]?.text ?? '';
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((file) => /node_modules\/ajv/.test(file))).toEqual([]);
    expect(inputs.some((file) => file.includes('@cfworker/json-schema'))).toBe(false);
    expect(code).not.toMatch(/new Function\s*\(/);
    expect(code).not.toMatch(/\beval\s*\(/);
    expect(code).not.toMatch(/from\s*"node:|require\("node:/);
    // Measured 2026-12, minified: 358 KB in all, of which zod 163 KB, the SDK 58 KB,
    // zod-to-json-schema 20 KB and this library 109 KB (the engine 18 KB of it). A jump past
    // this says a heavy dependency crept in.
    expect(code.length).toBeLessThan(400_000);
  });
});
