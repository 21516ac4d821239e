/**
 * The built package, as a user's import resolves it: every entry exports the same names, the
 * bare specifier picks the Node build under Node, and the edge build refuses stdio typed.
 * And the `rulvar-mcp` bin as a fresh clone gets it: `npm ci` runs `prepare`, which builds
 * dist/ (gitignored), so the CLI guide's first command (docs/cli.md) works verbatim right after it.
 * (`npm test` builds first and sets RULVAR_TEST_DIST=1; a bare `vitest run` skips this file.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { runScript } from './process-helpers.js';

const ROOT = new URL('../..', import.meta.url).pathname;
/** The command the CLI guide (docs/cli.md) leads with, after `npx rulvar-mcp`. */
const WORKBENCH_ARGS = ['inspect', '--stdio', 'node --import tsx examples/servers/workbench-stdio.ts'];

// Only when npm test has just built dist/: a stale or missing build must not be tested.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const load = async () => ({
  root: await import('@rulvar/core'),
  node: await import('@rulvar/core/node'),
  edge: await import('@rulvar/core/edge'),
  engine: await import('@rulvar/core/engine'),
  otel: await import('@rulvar/core/otel'),
  edgeOtel: await import(join(ROOT, 'dist/edge/otel.js')) as typeof import('@rulvar/core/otel'),
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

  it('@rulvar/core/engine is the engine of the Node build, without mcp', () => {
    for (const name of ['createEngine', 'defineWorkflow', 'fileJournal', 'memoryJournal', 'RulvarError'] as const) expect(entries.engine[name]).toBe(entries.node[name]);
    expect('mcp' in entries.engine).toBe(false);
  });

  it('@rulvar/core/otel resolves on Node and the edge to the same names, the same constants, and no engine', () => {
    expect(Object.keys(entries.edgeOtel).sort()).toEqual(Object.keys(entries.otel).sort());
    expect(entries.edgeOtel.GEN_AI_ATTRIBUTES).toBe(entries.otel.GEN_AI_ATTRIBUTES);
    expect(entries.otel.GEN_AI_ATTRIBUTES.OPERATION_NAME).toBe('gen_ai.operation.name');
    expect(Object.keys(entries.otel).sort()).toEqual(['GEN_AI_ATTRIBUTES', 'MAX_TRACE_CONTENT_CHARS', 'MAX_TRACE_TEXT_CHARS', 'RULVAR_ATTRIBUTES', 'RULVAR_EVENTS', 'runSpanContext']);
  });

  it('no built module imports @opentelemetry/api (an optional peer: the tracer is passed in)', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(join(ROOT, 'dist'), { recursive: true })).filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(10);
    const importing = [];
    for (const file of files) if (/from\s*["']@opentelemetry|import\(\s*["']@opentelemetry/.test(await readFile(join(ROOT, 'dist', file), 'utf8'))) importing.push(file);
    expect(importing).toEqual([]);
  });

  it('errors from one entry are recognised by the guards of another', () => {
    const error = new entries.edge.ConfigError('config.missing_key', 'x');
    expect(entries.node.ConfigError.is(error)).toBe(true);
    expect(entries.node.RulvarError.is(error)).toBe(true);
  });
});

describe.runIf(enabled)('dist bin: rulvar-mcp', () => {
  const manifest = async () => JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };

  it('npm pack builds it (prepack runs the same tsup build as npm run build) and no install script is published', async () => {
    const { scripts, bin } = await manifest();
    expect(scripts['prepack']).toMatch(/^tsup(\s|$)/);
    // npm 11 flags a dependency's install-time script (prepare, preinstall, install, postinstall) in every consumer.
    expect(Object.keys(scripts).filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
    expect(scripts['build']).toMatch(/^tsup(\s|$)/);
    expect(bin['rulvar-mcp']).toBe('./dist/cli/rulvar-mcp.js');
  });

  it("the bin package.json names runs the CLI guide's command: the workbench table, exit 0", { timeout: 60_000 }, async () => {
    const { bin } = await manifest();
    const readme = await readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
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
