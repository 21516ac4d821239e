/**
 * The built package, as a user's import resolves it: every entry exports the same names, the
 * bare specifier picks the Node build under Node, and the edge build refuses stdio typed.
 * And the `rulvar-mcp` bin as a fresh clone gets it: `npm ci` runs `prepare`, which builds
 * dist/ (gitignored), so README's first CLI command works verbatim right after it.
 * (`npm test` builds first and sets RULVAR_TEST_DIST=1; a bare `vitest run` skips this file.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { runScript } from './process-helpers.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** The command README's CLI section leads with, after `npx rulvar-mcp`. */
const WORKBENCH_ARGS = ['inspect', '--stdio', 'node --import tsx examples/servers/workbench-stdio.ts'];

// Only when npm test has just built dist/: a stale or missing build must not be tested.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const load = async () => ({
  root: await import('@rulvar/core'),
  node: await import('@rulvar/core/node'),
  edge: await import('@rulvar/core/edge'),
});
const entries = enabled ? await load() : (undefined as unknown as Awaited<ReturnType<typeof load>>);

describe.runIf(enabled)('dist entries', () => {
  it('every entry exports the same names', () => {
    const names = (m: object) => Object.keys(m).sort();
    expect(names(entries.edge)).toEqual(names(entries.node));
    expect(names(entries.root)).toEqual(names(entries.node));
    expect(names(entries.node)).toEqual(expect.arrayContaining(['mcp', 'ConfigError', 'RulvarError', 'SourceError', 'toToolResult']));
  });

  it('under Node, the bare specifier is the Node build (stdio available)', () => {
    expect(() => entries.root.mcp({ transport: 'stdio', command: 'x' })).not.toThrow();
    expect(entries.root.mcp).toBe(entries.node.mcp);
  });

  it('the edge build refuses stdio with config.transport_unavailable', () => {
    let error: unknown;
    try {
      entries.edge.mcp({ transport: 'stdio', command: 'x' });
    } catch (e) {
      error = e;
    }
    expect(entries.node.ConfigError.is(error)).toBe(true);
    expect((error as { code: string }).code).toBe('config.transport_unavailable');
  });

  it('errors from one entry are recognised by the guards of another', () => {
    const error = new entries.edge.ConfigError('config.missing_key', 'x');
    expect(entries.node.ConfigError.is(error)).toBe(true);
    expect(entries.node.RulvarError.is(error)).toBe(true);
  });
});

describe.runIf(enabled)('dist bin: rulvar-mcp', () => {
  const manifest = async () => JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

  it('npm ci builds it: prepare runs the same tsup build as npm run build', async () => {
    const { scripts, bin } = await manifest();
    expect(scripts['prepare']).toMatch(/^tsup(\s|$)/);
    expect(scripts['build']).toMatch(/^tsup(\s|$)/);
    expect(bin['rulvar-mcp']).toBe('./dist/cli/rulvar-mcp.js');
  });

  it("the bin package.json names runs README's command: the workbench table, exit 0", { timeout: 60_000 }, async () => {
    const { bin } = await manifest();
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npx rulvar-mcp ${WORKBENCH_ARGS[0]} ${WORKBENCH_ARGS[1]} "${WORKBENCH_ARGS[2]}"\n`);
    const run = await runScript(join(ROOT, bin['rulvar-mcp'] ?? ''), WORKBENCH_ARGS, ROOT);
    expect(run.stderr).not.toContain('rulvar-mcp:');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('source mcp:stdio:node: 6 tools');
    expect(run.stdout).toMatch(/TOOL\s+RISK\s+APPROVAL\s+STRICT\s+STANDARD\s+OPEN\s+BYTES\s+ADMISSION/);
    expect(run.stdout).toMatch(/^add_note\s+\(undeclared\)\s+no\s+ask\s+ask\s+allow\s+\d+\s+admitted$/m);
    expect(run.stdout).toMatch(/^toolsetHash {4}[0-9a-f]{64}$/m);
    expect(run.stdout).toMatch(/^authorityHash {2}[0-9a-f]{64}$/m);
  });
});
