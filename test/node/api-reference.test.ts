/**
 * `npm run docs:api`: the API reference generated from the types (typedoc.json) builds with no
 * warning, so with no broken `{@link}` and no export without a doc comment outside the listed
 * debt, and every page it writes links only to pages it wrote. It reads src/, not dist/, so
 * it runs with or without a build.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = path.join(root, 'docs/api');

interface Build {
  code: number;
  output: string;
}
let build: Build;

beforeAll(async () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  build = await promisify(execFile)(npm, ['run', '--silent', 'docs:api'], { cwd: root, timeout: 170_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
}, 180_000);

/** Every .html file under `dir`. */
async function pages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.html')).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('the API reference (npm run docs:api)', () => {
  it('builds with no warning: no broken link, no undocumented export outside the listed debt', () => {
    // eslint-disable-next-line no-control-regex -- typedoc colours its log
    const log = build.output.replace(/\x1b\[[0-9;]*m/g, '');
    expect(log.split('\n').filter((line) => /\[(warning|error)\]/.test(line))).toEqual([]);
    expect(build.code).toBe(0);
  });

  it('has a page for every entry typedoc.json names', async () => {
    const config = await readFile(path.join(root, 'typedoc.json'), 'utf8');
    const entries = [...config.matchAll(/"(src\/[\w/-]+\.ts)"/g)].map(([, entry = '']) => entry);
    expect(entries).toEqual(expect.arrayContaining(['src/node/index.ts', 'src/testing/index.ts', 'src/anthropic/index.ts', 'src/openai/index.ts']));
    // Each entry's page is named after the @module tag its header comment carries.
    const names = await Promise.all(
      entries.map(async (entry) => {
        const tag = /@module (\S+)/.exec(await readFile(path.join(root, entry), 'utf8'))?.[1];
        expect(tag, `${entry} names its @module`).toBeDefined();
        // typedoc's slug: '@' and '/' become '_', a hyphen stays (`@rulvar/core/ai-sdk` → `_rulvar_core_ai-sdk`).
        return `${(tag ?? '').replace(/[^A-Za-z0-9-]/g, '_')}.html`;
      }),
    );
    const modules = await readdir(path.join(out, 'modules'));
    expect(modules.sort()).toEqual(names.sort());
    // A name users implement, with the members they must write.
    const store = await readFile(path.join(out, 'interfaces/_rulvar_core.JournalStore.html'), 'utf8');
    expect(store).toContain('append');
    expect(store).toContain('load');
  });

  it('links only to pages it wrote', async () => {
    const broken: string[] = [];
    for (const page of await pages(out)) {
      const html = await readFile(page, 'utf8');
      for (const [, href = ''] of html.matchAll(/\b(?:href|src)="([^"#?]+)[^"]*"/g)) {
        if (/^(https?:|mailto:|data:)/.test(href)) continue;
        if (!existsSync(path.resolve(path.dirname(page), decodeURI(href)))) broken.push(`${path.relative(out, page)} -> ${href}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
