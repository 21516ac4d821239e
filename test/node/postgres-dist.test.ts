/**
 * The built `@rulvar/core/postgres`, as a user's import resolves it (only when npm test has
 * just built dist/, like dist.test.ts): it imports no package at all, so it loads where `pg`
 * is not installed (a copy of dist/ alone, in a directory with no node_modules above it); and
 * over a real pool its errors are the same classes as the main entry's (one shared chunk).
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freshTable, openPool, withSharedServer } from './postgres-shared.js';

const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const DIST = path.resolve(import.meta.dirname, '../../dist');

/** Every specifier the module at `file` imports, its relative imports followed. */
async function importsOf(file: string, seen = new Set<string>()): Promise<string[]> {
  if (seen.has(file)) return [];
  seen.add(file);
  const bare: string[] = [];
  for (const [, specifier] of (await readFile(file, 'utf8')).matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    if (specifier!.startsWith('.')) bare.push(...(await importsOf(path.resolve(path.dirname(file), specifier!), seen)));
    else bare.push(specifier!);
  }
  return bare;
}

describe.runIf(enabled)('dist entry: @rulvar/core/postgres', () => {
  withSharedServer();

  it('imports no package, and loads from a copy of dist/ with no node_modules anywhere above it', async () => {
    expect(await importsOf(path.join(DIST, 'postgres/index.js'))).toEqual([]);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-pg-dist-'));
    try {
      await cp(DIST, path.join(dir, 'dist'), { recursive: true });
      const script = `const m = await import('./dist/postgres/index.js'); try { m.postgresJournal({}) } catch (e) { console.log(typeof m.postgresJournal, e.code) }`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
      expect(stdout.trim()).toBe('function config.invalid_value');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('works over a real pg.Pool, and its errors are the main entry classes', async () => {
    const { postgresJournal } = await import('@rulvar/core/postgres');
    const { RulvarError } = await import('@rulvar/core');
    const store = postgresJournal({ pool: await openPool(), table: freshTable() });
    await store.append('r', [{ v: 1, type: 'step', name: 's', value: 1 }], 0);
    expect(await store.load('r')).toEqual([{ v: 1, type: 'step', name: 's', value: 1 }]);
    const conflict = await store.append('r', [], 0).then(() => undefined, (e: unknown) => e);
    expect(conflict).toBeInstanceOf(RulvarError);
    expect((conflict as { code?: unknown }).code).toBe('journal.conflict');
  });
});
