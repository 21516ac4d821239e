/**
 * rulvar-mcp end to end: the CLI, bundled from source (cli-harness.ts), runs as a child process
 * against real servers (stdio children and a loopback HTTP endpoint), and its output is
 * compared with what the library computes for the same server.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { build } from 'esbuild';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { mcp, resolveToolset, type ToolRisk } from '../../src/node/index.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { ROOT, bundleCli, type CliBundle } from './cli-harness.js';
import { runScript } from './process-helpers.js';

const SECRET = 'SECRET-token-4f9c2a';
let bundle: CliBundle;
const cli = (...args: string[]) => bundle.run(...args);
let WORKBENCH: string;
let WORKBENCH_JS: string;
const fixture = (args = ''): string => bundle.fixture(args);
// The CLI with a bug planted in its table renderer, to see how main reports its own crash.
let CRASHING: string;

/** The library's own view of the workbench, to hold the CLI's hashes against. */
async function libraryHashes(risk?: Record<string, ToolRisk>) {
  const source = mcp({ transport: 'stdio', command: process.execPath, args: [WORKBENCH_JS], ...(risk ? { risk } : {}) });
  try {
    const { toolsetHash, authorityHash } = await resolveToolset([source]);
    return { toolsetHash, authorityHash };
  } finally {
    await source.close();
  }
}

const row = (stdout: string, tool: string): string[] => (stdout.split('\n').find((line) => line.startsWith(`${tool} `)) ?? '').trim().split(/\s{2,}/);

let dir: string;
let http: ServerType;
let base: string;
const endpoint = createMcpEndpoint(createWorkbenchServer);
const rejected: (string | null)[] = [];

beforeAll(async () => {
  bundle = await bundleCli('rulvar-cli-test');
  WORKBENCH = bundle.workbench;
  WORKBENCH_JS = bundle.workbenchScript;
  CRASHING = join(bundle.dir, 'rulvar-mcp-crashing.mjs');
  await build({
    entryPoints: [join(ROOT, 'src/cli/rulvar-mcp.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    packages: 'external',
    outfile: CRASHING,
    logLevel: 'warning',
    plugins: [
      {
        name: 'plant-render-bug',
        setup(b) {
          b.onResolve({ filter: /^\.\/render\.js$/ }, () => ({ path: 'render-bug', namespace: 'bug' }));
          b.onLoad({ filter: /.*/, namespace: 'bug' }, () => ({
            contents: "export const renderTable = () => { throw new TypeError('planted render bug'); }; export const renderJson = renderTable;",
            loader: 'js',
          }));
        },
      },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'rulvar-cli-'));
  const app = new Hono()
    .all('/mcp', (c) => endpoint.handle(c.req.raw))
    // Hostile servers: refuse and echo the credential back in the error body.
    .all('/deny', (c) => {
      const auth = c.req.header('authorization') ?? null;
      rejected.push(auth);
      return c.text(`unauthorized: ${auth}`, 401);
    })
    .all('/echo', (c) => c.text(`boom: ${c.req.header('authorization') ?? ''}`, 500));
  await new Promise<void>((resolve) => {
    http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await endpoint.forgetSessions();
  await new Promise((resolve) => http.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

// Each case starts several CLI processes (each a stdio server beside it): a stuck-case limit
// wide enough for the niced Node 22/24 lane, where one took 17-20 s. Not a bound under test.
const CLI_CASE_MS = 60_000;

describe('rulvar-mcp inspect', { timeout: CLI_CASE_MS }, () => {
  it('prints every tool with risk, approval, three preset verdicts, bytes and admission, and the library hashes', async () => {
    const [run, expected] = await Promise.all([cli('inspect', '--stdio', WORKBENCH), libraryHashes()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/TOOL\s+RISK\s+APPROVAL\s+STRICT\s+STANDARD\s+OPEN\s+BYTES\s+ADMISSION/);
    expect(row(run.stdout, 'add_note')).toEqual(['add_note', '(undeclared)', 'no', 'ask', 'ask', 'allow', expect.stringMatching(/^\d+$/), 'admitted']);
    for (const name of ['read_note', 'list_notes', 'delete_note', 'snapshot']) expect(row(run.stdout, name)[0]).toBe(name);
    expect(run.stdout).toContain(`toolsetHash    ${expected.toolsetHash}`);
    expect(run.stdout).toContain(`authorityHash  ${expected.authorityHash}`);
  });

  it('--json prints one document; --risk changes risk, verdicts and the authority hash; --preset picks columns', async () => {
    const riskFile = join(dir, 'risk.json');
    const risk: Record<string, ToolRisk> = { delete_note: 'destructive', read_note: 'read', add_note: 'write' };
    await writeFile(riskFile, JSON.stringify(risk));
    const [json, strict, open, expected] = await Promise.all([
      cli('inspect', '--stdio', WORKBENCH, '--risk', riskFile, '--json'),
      cli('inspect', '--stdio', WORKBENCH, '--risk', riskFile, '--preset', 'strict'),
      cli('inspect', '--stdio', WORKBENCH, '--risk', riskFile, '--preset', 'open'),
      libraryHashes(risk),
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ format: 'rulvar.inspect/1', presets: ['strict', 'standard', 'open'], ...expected });
    const byName = new Map(doc.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.get('delete_note')).toEqual({
      name: 'delete_note',
      risk: 'destructive',
      needsApproval: false,
      verdicts: { strict: 'deny', standard: 'ask', open: 'allow' },
      schemaBytes: expect.any(Number),
      admission: { status: 'admitted' },
    });
    expect(byName.get('read_note')).toMatchObject({ risk: 'read', verdicts: { strict: 'allow', standard: 'allow', open: 'allow' } });
    expect(byName.get('add_note')).toMatchObject({ risk: 'write', verdicts: { strict: 'ask', standard: 'allow' } });

    expect(strict.stdout).toMatch(/TOOL\s+RISK\s+APPROVAL\s+STRICT\s+BYTES/);
    expect(strict.stdout).not.toMatch(/STANDARD|OPEN/);
    expect(row(strict.stdout, 'delete_note').slice(0, 4)).toEqual(['delete_note', 'destructive', 'no', 'deny']);
    expect(row(open.stdout, 'delete_note').slice(0, 4)).toEqual(['delete_note', 'destructive', 'no', 'allow']);
  });

  it('sends --header to an HTTP server and never prints its value, on success, a 401, or a 500 that echoes it back', async () => {
    endpoint.requests.length = 0;
    const ok = await cli('inspect', '--url', `${base}/mcp`, '--header', `authorization:Bearer ${SECRET}`, '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).tools).toHaveLength(6);
    expect(endpoint.requests.length).toBeGreaterThan(0);
    expect(endpoint.requests.every((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);

    const denied = await cli('inspect', '--url', `${base}/deny`, '-H', `authorization: Bearer ${SECRET}`);
    expect(rejected).toContain(`Bearer ${SECRET}`);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toMatch(/source\.\w+/);
    const echoed = await cli('inspect', '--url', `${base}/echo`, '-H', `authorization:Bearer ${SECRET}`);
    expect(echoed.code).toBe(3);
    expect(echoed.stderr).toContain('boom: [redacted]');
    const malformed = await cli('inspect', '--url', `${base}/mcp`, '--header', SECRET);
    expect(malformed.code).toBe(2);
    for (const run of [ok, denied, echoed, malformed]) expect(run.stdout + run.stderr).not.toContain(SECRET.slice(0, 12));
  });

  it('shows progress on stderr while a slow server pages, then finishes', async () => {
    const run = await cli('inspect', '--stdio', fixture('--page-delay-ms 700'));
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/sweeping \S+… \d+\.\d s/);
    expect(run.stdout).toMatch(/3 tools/);
  });

  it('shows a refused tool as a row, with no hashes, exit 5 and no pin written', async () => {
    const pin = join(dir, 'refused-pin.json');
    const [run, json] = await Promise.all([
      cli('inspect', '--stdio', fixture(), '--max-schema-bytes', '40', '--attest', pin),
      cli('inspect', '--stdio', fixture(), '--max-schema-bytes', '40', '--json'),
    ]);
    expect([run.code, json.code]).toEqual([5, 5]);
    expect(JSON.parse(json.stdout)).toMatchObject({ toolsetHash: null, authorityHash: null, tools: [{ name: 'alpha', admission: { status: 'refused', code: 'schema.too_large' } }, {}, {}] });
    expect(row(run.stdout, 'alpha')).toEqual(['alpha', '(undeclared)', 'no', 'ask', 'ask', 'allow', '54', expect.stringMatching(/^refused schema\.too_large: 54 bytes/)]);
    expect(row(run.stdout, 'beta').at(-1)).toBe('admitted');
    expect(run.stdout).toContain('toolsetHash    (none: 1 of 3 tools refused admission)');
    await expect(readFile(pin, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('exits 3 with the typed code when a bound is exceeded, and 2 on usage errors', async () => {
    const [bound, usage] = await Promise.all([
      cli('inspect', '--stdio', WORKBENCH, '--max-tools', '2'),
      Promise.all([cli('inspect'), cli('frobnicate'), cli('inspect', '--stdio', '"unterminated'), cli('inspect', '--stdio', WORKBENCH, '--max-tools', '0'), cli('check', '--stdio', WORKBENCH)]),
    ]);
    expect(bound.code).toBe(3);
    expect(bound.stderr).toContain('discovery.max_tools');
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*1 {2}check: the server drifted/);
  });

  it('an unwritable --attest path is a usage error (2) naming the path, after the table', async () => {
    const pin = join(dir, 'no-such-dir', 'pin.json');
    const run = await cli('inspect', '--stdio', WORKBENCH, '--attest', pin);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('toolsetHash');
    expect(run.stderr).toContain(`rulvar-mcp: --attest ${pin}: ENOENT`);
    expect(run.stderr).not.toContain('attestation written');
    await expect(readFile(pin, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a bug in the CLI itself exits 70 with its stack, never a verdict code about the server', async () => {
    const run = await runScript(CRASHING, ['inspect', '--stdio', WORKBENCH], ROOT);
    expect(run.code).toBe(70);
    expect(run.stderr).toMatch(/^rulvar-mcp: internal error: TypeError: planted render bug\n\s+at /m);
    expect(run.stdout).toBe('');
  });
});

describe('rulvar-mcp check', { timeout: CLI_CASE_MS }, () => {
  it('--attest then check passes on the same server and names changed, missing and unexpected tools after drift', async () => {
    const pin = join(dir, 'pin.json');
    const attest = await cli('inspect', '--stdio', fixture('--variant v1'), '--attest', pin);
    expect(attest.code).toBe(0);
    expect(JSON.parse(await readFile(pin, 'utf8'))).toMatchObject({ format: 'rulvar.toolset-attestation/1', tools: [{ name: 'alpha' }, { name: 'beta' }, { name: 'gamma' }] });

    const [same, drifted] = await Promise.all([cli('check', pin, '--stdio', fixture('--variant v1')), cli('check', pin, '--stdio', fixture('--variant v2'))]);
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(`${pin}: ok\n`);
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toMatch(/changed\s+alpha \(contract\)/);
    expect(drifted.stdout).toMatch(/missing\s+beta/);
    expect(drifted.stdout).toMatch(/unexpected\s+delta/);
    expect(drifted.stdout).not.toMatch(/gamma/);
    const json = await cli('check', pin, '--stdio', fixture('--variant v2'), '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual([
      { file: pin, status: 'drifted', changed: [{ name: 'alpha', contract: true, authority: false }], missing: ['beta'], unexpected: ['delta'] },
    ]);
  });

  it('exits 4 for a pin that is missing or not an attestation, before connecting', async () => {
    const bogus = join(dir, 'bogus.json');
    await writeFile(bogus, '{"format":"something else"}');
    const runs = await Promise.all([cli('check', join(dir, 'absent.json'), '--url', `${base}/none`), cli('check', bogus, '--url', `${base}/none`)]);
    expect(runs.map((r) => r.code)).toEqual([4, 4]);
  });
});
