/**
 * What the rulvar-mcp tests share: the CLI and its fixture servers bundled from source by
 * esbuild, each test file into its own directory (files run in parallel), and a runner. esbuild
 * rather than tsup so that dist/ (which other suites read) is not rebuilt under them; rather
 * than tsx, because starting tsx once per run would be most of a file's time.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { runScript, type ScriptRun } from './process-helpers.js';

export const ROOT = new URL('../..', import.meta.url).pathname;

export interface CliBundle {
  readonly dir: string;
  /** Runs the CLI with these arguments, from the repository root. */
  run(...args: string[]): Promise<ScriptRun>;
  /** The workbench example server, as a --stdio command line. */
  readonly workbench: string;
  readonly workbenchScript: string;
  /** The CLI fixture server (fixtures/cli-server.ts) with these arguments, as a --stdio line. */
  fixture(args?: string): string;
}

/** Bundles into node_modules/.cache/<name> (inside node_modules, so external imports resolve). */
export async function bundleCli(name: string): Promise<CliBundle> {
  const dir = join(ROOT, 'node_modules/.cache', name);
  await build({
    entryPoints: {
      'rulvar-mcp': join(ROOT, 'src/cli/rulvar-mcp.ts'),
      'workbench-stdio': join(ROOT, 'examples/servers/workbench-stdio.ts'),
      'cli-server': join(ROOT, 'test/node/fixtures/cli-server.ts'),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    packages: 'external',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const workbenchScript = join(dir, 'workbench-stdio.mjs');
  return {
    dir,
    run: (...args) => runScript(join(dir, 'rulvar-mcp.mjs'), args, ROOT),
    workbench: `node '${workbenchScript}'`,
    workbenchScript,
    fixture: (args = '') => `node '${join(dir, 'cli-server.mjs')}' ${args}`,
  };
}
