/**
 * rulvar-mcp's promises about bounds and exit codes (docs/cli.md): every bound flag reaches
 * mcp() (in the config it is given, and in what a real server then runs into, each refusal
 * naming the flag to raise), `check` exits 1 as soon as one pin of several drifted, and every
 * exit code the guide and --help list is the one the CLI returns for that case.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, parseArgs, type InspectOptions } from '../../src/cli/args.js';
import { EXIT } from '../../src/cli/exit.js';
import { HELP } from '../../src/cli/help.js';
import { sourceConfig } from '../../src/cli/source.js';
import { ROOT, bundleCli, type CliBundle } from './cli-harness.js';

let bundle: CliBundle;
let dir: string;

beforeAll(async () => {
  bundle = await bundleCli('rulvar-cli-bounds-test');
  dir = await mkdtemp(join(tmpdir(), 'rulvar-cli-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const optionsOf = (...argv: string[]): InspectOptions => {
  const command = parseArgs(argv);
  if (command.kind === 'help') throw new Error('parsed as help');
  return command;
};
const configOf = (...argv: string[]) => sourceConfig(optionsOf(...argv), undefined, () => undefined);

describe('every bound flag reaches mcp()', () => {
  it('each flag lands in the config mcp() is given, for inspect and check, stdio and HTTP', () => {
    const flags = ['--connect-ms', '11', '--list-ms', '12', '--timeout-ms', '13', '--call-ms', '14', '--max-tools', '15', '--max-pages', '16'];
    const expected = { maxTools: 15, maxPages: 16, timeouts: { connectMs: 11, listMs: 12, discoveryMs: 13, callMs: 14 } };
    expect(configOf('inspect', '--stdio', 'server', ...flags)).toMatchObject({ ...expected, transport: 'stdio' });
    expect(configOf('check', 'pin.json', '--url', 'https://mcp.test/mcp', ...flags)).toMatchObject({ ...expected, transport: 'streamable-http' });
    // --max-schema-bytes is applied per row instead (one refused row, not a failed sweep).
    expect(configOf('inspect', '--stdio', 'server', '--max-schema-bytes', '17')).not.toHaveProperty('maxSchemaBytes');
    expect(optionsOf('inspect', '--stdio', 'server', '--max-schema-bytes=17').bounds.maxSchemaBytes).toBe(17);
  });

  it('without flags the defaults do: a minute for the handshake (a cold npx start), and the sweep a half minute past it', () => {
    expect(configOf('inspect', '--stdio', 'server')).toMatchObject({
      maxTools: 1_000,
      maxPages: 100,
      timeouts: { connectMs: 60_000, listMs: 10_000, discoveryMs: 90_000, callMs: 30_000 },
    });
    expect(DEFAULT_BOUNDS.maxSchemaBytes).toBe(65_536);
  });

  it('against a real server each bound ends the inspection typed (exit 3), naming its value and the flag to raise', { timeout: 30_000 }, async () => {
    const cases = [
      [['--connect-ms', '500'], '--handshake-delay-ms 5000', 'connect.timeout', 'timeouts.connectMs = 500 ms', '--connect-ms'],
      [['--list-ms', '300'], '--page-delay-ms 2000', 'discovery.page_timeout', 'timeouts.listMs = 300 ms', '--list-ms'],
      [['--timeout-ms', '1200'], '--page-delay-ms 700', 'discovery.deadline', 'deadline of 1200 ms', '--timeout-ms'],
      [['--max-pages', '2'], '--paged', 'discovery.max_pages', 'after 2 pages, the maxPages cap', '--max-pages'],
      [['--max-tools', '2'], '', 'discovery.max_tools', 'past maxTools = 2', '--max-tools'],
    ] as const;
    const runs = await Promise.all(cases.map(([flags, server]) => bundle.run('inspect', '--stdio', bundle.fixture(server), ...flags)));
    for (const [i, [, , code, value, flag]] of cases.entries()) {
      const run = runs[i];
      expect(run?.code).toBe(3);
      expect(run?.stderr).toContain(`rulvar-mcp: ${code}: `);
      expect(run?.stderr).toContain(value);
      expect(run?.stderr).toContain(`(raise ${flag})`);
    }
    // The same servers within the defaults: each bound above was what ended its run.
    const fine = await Promise.all(['--handshake-delay-ms 1000', '--paged'].map((server) => bundle.run('inspect', '--stdio', bundle.fixture(server))));
    expect(fine.map((run) => run.code)).toEqual([0, 0]);
  });
});

describe('check against several pins', { timeout: 30_000 }, () => {
  it('exits 1 when one pin of several drifted, 0 only when every pin matches', async () => {
    const [v1, v2] = [join(dir, 'v1.json'), join(dir, 'v2.json')];
    const attested = await Promise.all([
      bundle.run('inspect', '--stdio', bundle.fixture('--variant v1'), '--attest', v1),
      bundle.run('inspect', '--stdio', bundle.fixture('--variant v2'), '--attest', v2),
    ]);
    expect(attested.map((run) => run.code)).toEqual([0, 0]);
    const [oneDrifted, firstDrifted, allMatch, json] = await Promise.all([
      bundle.run('check', v1, v2, '--stdio', bundle.fixture('--variant v1')),
      bundle.run('check', v2, v1, '--stdio', bundle.fixture('--variant v1')),
      bundle.run('check', v1, v1, '--stdio', bundle.fixture('--variant v1')),
      bundle.run('check', v1, v2, '--stdio', bundle.fixture('--variant v1'), '--json'),
    ]);
    expect([oneDrifted.code, firstDrifted.code, allMatch.code, json.code]).toEqual([EXIT.drift, EXIT.drift, EXIT.ok, EXIT.drift]);
    expect(oneDrifted.stdout).toContain(`${v1}: ok\n${v2}: drifted\n`);
    expect(allMatch.stdout).toBe(`${v1}: ok\n${v1}: ok\n`);
    expect(JSON.parse(json.stdout).map((r: { status: string }) => r.status)).toEqual(['ok', 'drifted']);
  });
});

describe('exit codes', { timeout: 30_000 }, () => {
  it('docs/cli.md and --help list exactly the codes the CLI returns', async () => {
    const guide = await readFile(join(ROOT, 'docs/cli.md'), 'utf8');
    const table = guide.slice(guide.indexOf('### Exit codes'), guide.indexOf('### Sample output'));
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const helped = [...HELP.slice(HELP.indexOf('Exit codes:')).matchAll(/^ {2}(\d+) +\S/gm)].map((m) => Number(m[1]));
    const codes = Object.values(EXIT);
    expect(documented).toEqual(codes);
    expect(helped).toEqual(codes);
  });

  it('2 for each usage error docs/cli.md names: bad flags, an unreadable --risk file, a value mcp() refuses', async () => {
    const badLabel = join(dir, 'bad-risk.json');
    await writeFile(badLabel, JSON.stringify({ alpha: 'harmless' }));
    const runs = await Promise.all([
      bundle.run('inspect', '--stdio', bundle.fixture(), '--list-ms', '-1'),
      bundle.run('inspect', '--stdio', bundle.fixture(), '--risk', join(dir, 'absent.json')),
      bundle.run('inspect', '--stdio', bundle.fixture(), '--risk', badLabel),
    ]);
    expect(runs.map((run) => run.code)).toEqual([EXIT.usage, EXIT.usage, EXIT.usage]);
    expect(runs[1]?.stderr).toContain('--risk');
    expect(runs[2]?.stderr).toContain("rulvar-mcp: config.invalid_value: mcp(): 'risk' must be");
    for (const run of runs) expect(run.stderr).toContain('run rulvar-mcp --help for usage');
  });
});
