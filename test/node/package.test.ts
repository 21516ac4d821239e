/**
 * The package as npm packs it, and the README's Quick start in an empty folder: `npm pack`,
 * the tarball installed with the README's own commands, the README's code saved as
 * `quickstart.ts` and run with the README's command, its output compared with what the README
 * says it prints. Nothing of the repository is reachable from that folder: it lives under the
 * OS's temp dir, so only the tarball and the registry (or npm's cache) can satisfy an import.
 *
 * Assumed: `npm test` has just built dist/ (RULVAR_TEST_DIST=1), so the pack skips scripts
 * (`--ignore-scripts`): a `prepare` or `prepack` build here would replace dist/ under the
 * other test files of the run. The pack is otherwise exactly what `npm pack` makes.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICKSTART_OUTPUT, codeBlocks, type CodeBlock } from './docs-code.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

interface Packed {
  filename: string;
  files: { path: string; size: number }[];
}

/** A shell without the variables `npm test` set (npm_*, INIT_CWD): a person's terminal. */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|INIT_CWD$|VITEST|NODE_OPTIONS$)/i.test(key)));
  // Quiet and cache-first; the commands themselves stay the README's.
  return { ...env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

/** Runs one command line as a shell would; `output` is stdout then stderr. */
function sh(command: string, cwd: string): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { cwd, env: userEnv(), timeout: 200_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, output: `${stdout}${stderr}` }),
    );
  });
}

/** The blocks of the README's section whose heading starts with `heading`. */
function section(readme: string, heading: string): CodeBlock[] {
  const start = readme.indexOf(`\n## ${heading}`);
  const end = readme.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(0);
  return codeBlocks('README.md', readme.slice(start, end === -1 ? undefined : end));
}

describe.runIf(enabled)('npm pack, and the Quick start in an empty folder', () => {
  let dir: string;
  let packed: Packed;
  let readme: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rulvar-package-'));
    readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const pack = await sh(`npm pack --ignore-scripts --json --pack-destination ${JSON.stringify(dir)}`, root);
    expect(pack.code, pack.output).toBe(0);
    [packed] = JSON.parse(pack.stdout) as [Packed];
  }, 120_000);

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('packs dist/, README.md, LICENSE and package.json, nothing else', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths.filter((file) => !file.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(file))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json', 'dist/node/index.js', 'dist/node/index.d.ts', 'dist/cli/rulvar-mcp.js']));
    // dist/ holds the build only: no test, fixture or TypeScript source slipped in.
    expect(paths.filter((file) => /(^|\/)(test|tests|fixtures?)\/|\.test\.|(?<!\.d)\.ts$/.test(file))).toEqual([]);
    expect(packed.filename).toBe('rulvar-core-0.1.0.tgz');
  });

  it('ships source maps that stand alone: each embeds every source it names, and each script names a packed map', async () => {
    const paths = new Set(packed.files.map((file) => file.path));
    const maps = [...paths].filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(await readFile(path.join(root, map), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect({ map, embedded: (sourcesContent ?? []).filter((content) => typeof content === 'string').length }).toEqual({ map, embedded: sources.length });
    }
    for (const script of [...paths].filter((file) => file.endsWith('.js'))) {
      const named = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(path.join(root, script), 'utf8'))?.[1];
      expect({ script, map: named === undefined ? undefined : paths.has(path.posix.join(path.posix.dirname(script), named)) }).toEqual({ script, map: true });
    }
  });

  it("installs from the tarball with the README's commands and runs its Quick start as written", { timeout: 600_000 }, async () => {
    const quick = section(readme, 'Quick start');
    const [install, code, printed] = ['sh', 'ts', 'text'].map((lang) => quick.find((block) => block.lang === lang));
    // Install packs with `npm pack` and names the tarball the Quick start installs.
    const pack = section(readme, 'Install').find((block) => block.lang === 'sh');
    expect(pack?.code).toMatch(/^npm ci && npm pack\b/m);
    expect(pack?.code).toContain(`npm install ./${packed.filename} @modelcontextprotocol/sdk zod`);
    expect(install?.code).toContain(`npm install ./${packed.filename} @modelcontextprotocol/sdk zod`);
    const run = 'npx tsx quickstart.ts';
    expect(readme).toContain(`\`${run}\` prints:`);

    const folder = path.join(dir, 'hello');
    await mkdir(folder);
    await copyFile(path.join(dir, packed.filename), path.join(folder, packed.filename));
    for (const command of (install?.code ?? '').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))) {
      const step = await sh(command, folder);
      expect(step.code, `${command}\n${step.output}`).toBe(0);
    }
    await writeFile(path.join(folder, 'quickstart.ts'), `${code?.code ?? ''}\n`);
    const manifest = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { type?: string; dependencies?: Record<string, string> };
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies?.['@rulvar/core']).toBe(`file:${packed.filename}`);

    const quickstart = await sh(run, folder);
    expect(quickstart.code, quickstart.output).toBe(0);
    expect(quickstart.output).toBe(QUICKSTART_OUTPUT);
    expect(`${printed?.code}\n`).toBe(QUICKSTART_OUTPUT);
  });
});
