/**
 * rulvar-mcp's inspection in process, against a real stdio server (fixtures/cli-server.ts):
 * the --risk file and the config mcp() is given (source.ts), every tool judged, measured and
 * admitted on its own (inspect.ts), and the sweeping line on both sides of its quiet period
 * (progress.ts). cli.test.ts runs the same promises through the built command.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseArgs, type InspectOptions } from '../../src/cli/args.js';
import { CliExit, EXIT } from '../../src/cli/exit.js';
import { inspect } from '../../src/cli/inspect.js';
import { startProgress } from '../../src/cli/progress.js';
import { openSource, readRiskFile, sourceConfig } from '../../src/cli/source.js';
import { caught } from '../core/helpers.js';
import { TERMINAL_HOSTILE } from './fixtures/terminal-hostile.js';

const FIXTURE = new URL('./fixtures/cli-server.ts', import.meta.url).pathname;
const stdio = (...flags: string[]): string => `node --import tsx ${FIXTURE} ${flags.join(' ')}`;
const options = (argv: string[]): InspectOptions => {
  const command = parseArgs(argv);
  if (command.kind === 'help') throw new Error('expected a command');
  return command;
};
const inspectOf = (line: string, ...more: string[]) => options(['inspect', '--stdio', line, ...more]);
const exitOf = async (work: () => unknown): Promise<{ exitCode: number; message: string }> => {
  const error = await caught(work);
  expect(error).toBeInstanceOf(CliExit);
  return { exitCode: (error as CliExit).exitCode, message: (error as CliExit).message };
};
/** What process.stderr is given while `work` runs (and `settleMs` after). */
async function stderrOf(work: () => Promise<unknown>, settleMs = 0): Promise<string> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
  try {
    await work().catch(() => undefined);
    await sleep(settleMs);
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

let dir = '';
const path = (name: string) => join(dir, name);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rulvar-cli-inspect-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('source.ts: the --risk file and the config mcp() is given', () => {
  it('unreadable, not JSON, null, an array or a string is a usage error naming the file and why; an object is passed on', async () => {
    const files: Record<string, string> = { 'r1.json': 'nope', 'r2.json': '[]', 'r3.json': '"read"', 'r4.json': 'null', 'ok.json': '{"alpha":"read"}' };
    for (const [name, text] of Object.entries(files)) await writeFile(path(name), text);
    const why: Record<string, RegExp> = { 'r1.json': /JSON/, 'r2.json': /expected a JSON object/, 'r3.json': /expected a JSON object/, 'r4.json': /expected a JSON object/, 'missing.json': /ENOENT/ };
    for (const [name, reason] of Object.entries(why)) {
      const { exitCode, message } = await exitOf(() => readRiskFile(path(name)));
      expect([exitCode, message.startsWith(`--risk ${path(name)}: `)]).toEqual([EXIT.usage, true]);
      expect(message).toMatch(reason);
    }
    expect(await readRiskFile(path('ok.json'))).toEqual({ alpha: 'read' });
  });

  it('a risk label mcp() refuses is a usage error naming the tool, before any server is started', async () => {
    await writeFile(path('bad-risk.json'), JSON.stringify({ alpha: 'dangerous' }));
    const failed = await exitOf(() => openSource(inspectOf(stdio(), '--risk', path('bad-risk.json'))));
    expect(failed.exitCode).toBe(EXIT.usage);
    expect(failed.message).toMatch(/^config\.invalid_value: .*risk.*"alpha"/);
  });

  it('risk only when given, headers to an HTTP server, a stdio server\'s stderr escaped on its way out', () => {
    const seen: string[] = [];
    const plain = sourceConfig(inspectOf('srv'), undefined, (text) => seen.push(text));
    expect(Object.hasOwn(plain, 'risk')).toBe(false);
    expect(sourceConfig(inspectOf('srv'), { a: 'read' }, () => undefined)).toMatchObject({ risk: { a: 'read' } });
    const stderr = (plain as { stderr?: unknown }).stderr as (chunk: string) => void;
    stderr('log \x1b[2J line\nnext\n');
    expect(seen).toEqual(['log \\x1b[2J line\nnext\n']);
    const http = sourceConfig(options(['inspect', '--url', 'https://h.test/mcp', '-H', 'X-Key: v1', '-H', 'Other: v2']), undefined, () => undefined);
    expect(http).toMatchObject({ transport: 'streamable-http', url: 'https://h.test/mcp', http: { headers: { 'X-Key': 'v1', Other: 'v2' } } });
  });
});

describe('inspect.ts against a real stdio server', { timeout: 30_000 }, () => {
  it('every tool judged under each preset, its schema measured, admitted; risk labels change the verdicts', async () => {
    const inspection = await inspect(inspectOf(stdio('--variant', 'v1')));
    expect(inspection.tools.map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(inspection.tools[0]).toEqual({
      name: 'alpha',
      risk: null,
      needsApproval: false,
      verdicts: { strict: 'ask', standard: 'ask', open: 'allow' },
      schemaBytes: Buffer.byteLength(JSON.stringify({ type: 'object', properties: { q: { type: 'string' } } })),
      admission: { status: 'admitted' },
    });
    await writeFile(path('risk.json'), JSON.stringify({ alpha: 'read', beta: 'destructive' }));
    const labelled = await inspect(inspectOf(stdio('--variant', 'v1'), '--risk', path('risk.json'), '--preset', 'standard'));
    expect(labelled.tools.map((t) => [t.name, t.risk, t.verdicts])).toEqual([
      ['alpha', 'read', { standard: 'allow' }],
      ['beta', 'destructive', { standard: 'ask' }],
      ['gamma', null, { standard: 'ask' }],
    ]);
    expect(labelled.resolved?.authorityHash).not.toBe(inspection.resolved?.authorityHash);
    expect(labelled.resolved?.toolsetHash).toBe(inspection.resolved?.toolsetHash);
  });

  it('an output schema counts toward the bytes; a refused tool, or one past --max-schema-bytes, is a row and no toolset resolves', async () => {
    const typed = await inspect(inspectOf(stdio('--variant', 'output')));
    const schemas = JSON.stringify({ type: 'object', properties: { q: { type: 'string' } } }) + JSON.stringify({ type: 'object', properties: { n: { type: 'number' } } });
    expect(typed.tools[0]?.schemaBytes).toBe(Buffer.byteLength(schemas));
    const hostile = await inspect(inspectOf(stdio('--variant', 'hostile')));
    expect(hostile.tools.map((t) => [t.name, t.admission.status])).toEqual([
      ['shown', 'admitted'],
      ['quoted', 'refused'],
    ]);
    expect(hostile.resolved).toBeUndefined();
    const small = await inspect(inspectOf(stdio('--variant', 'v1'), '--max-schema-bytes', '40'));
    const bytes = small.tools.map((t) => t.schemaBytes ?? 0);
    expect(bytes.filter((b) => b > 40).length).toBe(1);
    expect(small.tools.map((t) => t.admission)).toEqual(
      bytes.map((b) => (b > 40 ? { status: 'refused', code: 'schema.too_large', message: `${b} bytes of schema, past --max-schema-bytes 40` } : { status: 'admitted' })),
    );
    expect(small.resolved).toBeUndefined();
    expect((await inspect(inspectOf(stdio('--variant', 'v1'), '--max-schema-bytes', String(Math.max(...bytes))))).resolved).toBeDefined();
  });

  it('a sweep past a bound is exit 3 naming the flag to raise; a listing error is exit 3 without a hint', async () => {
    const tooMany = await exitOf(() => inspect(inspectOf(stdio('--variant', 'v1'), '--max-tools', '2')));
    expect(tooMany).toMatchObject({ exitCode: EXIT.source, message: expect.stringMatching(/^discovery\.max_tools: .* \(raise --max-tools\)$/) });
    const pages = await exitOf(() => inspect(inspectOf(stdio('--variant', 'v1', '--paged'), '--max-pages', '2')));
    expect(pages.message).toMatch(/^discovery\.max_pages: .* \(raise --max-pages\)$/);
    const failing = await exitOf(() => inspect(inspectOf(stdio('--variant', 'hostile-error'))));
    expect(failing.exitCode).toBe(EXIT.source);
    // The server's own text ends the message: no hint (and no escaping yet: main does that).
    expect(failing.message.startsWith('source.protocol: mcp:stdio:node: tools/list failed: MCP error -32000: listing failed ')).toBe(true);
    expect(failing.message.endsWith(TERMINAL_HOSTILE)).toBe(true);
  });

  it('a slow sweep shows its line naming the source; a failed one stops it; the server\'s stderr comes out escaped', async () => {
    const slow = await stderrOf(() => inspect(inspectOf(stdio('--variant', 'v1', '--page-delay-ms', '450'))));
    expect(slow).toMatch(/^sweeping mcp:stdio:node… \d+\.\d s\n/m);
    const failed = await stderrOf(() => inspect(inspectOf(stdio('--variant', 'hostile-error', '--hostile-stderr'))), 1_200);
    expect(failed).not.toContain('sweeping');
    expect(failed).toContain('server log: ');
    expect(failed).not.toContain('\x1b');
  });
});

describe('progress.ts: quiet for 300 ms, then a line', () => {
  afterEach(() => vi.useRealTimers());
  const stream = (isTTY: boolean) => {
    const written: string[] = [];
    return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
  };

  it('on a terminal: nothing before 300 ms, then redrawn every 100 ms in place, erased when stopped', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const { written, stream: out } = stream(true);
    const stop = startProgress(out, 'sweeping \x1b[2Jsrv');
    vi.advanceTimersByTime(299);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toEqual(['\rsweeping \\x1b[2Jsrv… 0.3 s\x1b[K']);
    vi.advanceTimersByTime(200);
    expect(written.slice(1)).toEqual(['\rsweeping \\x1b[2Jsrv… 0.4 s\x1b[K', '\rsweeping \\x1b[2Jsrv… 0.5 s\x1b[K']);
    stop();
    expect(written.at(-1)).toBe('\r\x1b[K');
    stop();
    vi.advanceTimersByTime(1_000);
    expect(written.length).toBe(4);
  });

  it('into a pipe: one line a second, none erased; stopped before its quiet period, nothing at all', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const pipe = stream(false);
    const stop = startProgress(pipe.stream, 'srv');
    vi.advanceTimersByTime(999);
    expect(pipe.written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(pipe.written).toEqual(['srv… 1.0 s\n']);
    vi.advanceTimersByTime(1_000);
    stop();
    expect(pipe.written).toEqual(['srv… 1.0 s\n', 'srv… 2.0 s\n']);
    const quiet = stream(true);
    const early = startProgress(quiet.stream, 'srv');
    vi.advanceTimersByTime(250);
    early();
    vi.advanceTimersByTime(1_000);
    expect(quiet.written).toEqual([]);
  });
});
