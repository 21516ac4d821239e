/**
 * rulvar-mcp prints what a server sent without letting it drive the terminal: against a real
 * stdio server (fixtures/cli-server.ts) whose names, schemas, errors and stderr carry every
 * class of control text (fixtures/terminal-hostile.ts), nothing on stdout or stderr is a raw
 * control or format character except the line breaks the CLI writes, each class shows escaped,
 * and --json still parses to exactly what the server sent.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCli, type CliBundle } from './cli-harness.js';
import { ESCAPED_WITNESSES, RAW_HIDDEN, TERMINAL_CLASSES, TERMINAL_HOSTILE, everyControlEscaped } from './fixtures/terminal-hostile.js';

let bundle: CliBundle;
let dir: string;

beforeAll(async () => {
  bundle = await bundleCli('rulvar-cli-terminal-test');
  dir = await mkdtemp(join(tmpdir(), 'rulvar-cli-terminal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** No raw control or format character but the CLI's own line breaks. */
function expectSafe(text: string): void {
  const found = [...text.replace(/\n/g, '')].filter((char) => RAW_HIDDEN.test(char));
  expect(found.map((char) => `U+${(char.codePointAt(0) ?? 0).toString(16)}`)).toEqual([]);
}

describe('rulvar-mcp shows server text escaped', { timeout: 20_000 }, () => {
  it('in the table: a refusal quoting a hostile schema property shows every class escaped, on its one line', async () => {
    const run = await bundle.run('inspect', '--stdio', bundle.fixture('--variant hostile'));
    expect(run.code).toBe(5);
    expectSafe(run.stdout);
    const row = run.stdout.split('\n').find((line) => line.startsWith('quoted '));
    expect(row).toMatch(/refused schema\.unsupported: .*\/properties\/p\\x1b\[2J/);
    for (const witness of ESCAPED_WITNESSES) expect(row).toContain(witness);
    // Not only the samples: every C0, DEL, C1 and bidi control shows escaped, in order.
    expect(row).toContain(everyControlEscaped());
    // The server's CR LF did not start a line of its own.
    expect(run.stdout.split('\n').some((line) => line.startsWith('rulvar-mcp: ok'))).toBe(false);
  });

  it('in --json: the same characters, escaped as JSON escapes them, parse back to exactly what the server sent', async () => {
    const run = await bundle.run('inspect', '--stdio', bundle.fixture('--variant hostile'), '--json');
    expect(run.code).toBe(5);
    expectSafe(run.stdout);
    for (const escape of ['\\u001b[2J', '\\u009b31m', '\\u202eevil', '\\u2066', '\\u200b', '\\ufeff', '\\udb40\\udc41', '\\u2028', '\\u007f']) {
      expect(run.stdout).toContain(escape);
    }
    const quoted = JSON.parse(run.stdout).tools.find((tool: { name: string }) => tool.name === 'quoted');
    expect(quoted.admission.message).toContain(`/properties/p${TERMINAL_HOSTILE}`);
  });

  it('in errors on stderr: a refused hostile tool name and a hostile JSON-RPC error are one escaped line each', async () => {
    const [name, failure] = await Promise.all([
      bundle.run('inspect', '--stdio', bundle.fixture('--variant hostile-name')),
      bundle.run('inspect', '--stdio', bundle.fixture('--variant hostile-error')),
    ]);
    expect([name.code, failure.code]).toEqual([3, 3]);
    for (const run of [name, failure]) {
      expectSafe(run.stderr);
      // One line of error (a slow start may add progress lines before it).
      expect(run.stderr.split('\n').filter((line) => line.startsWith('rulvar-mcp:'))).toHaveLength(1);
      expect(run.stderr.split('\n').filter((line) => line !== '' && !/^(rulvar-mcp:|sweeping) /.test(line))).toEqual([]);
      for (const witness of ['\\x9b31m', '\\u202eevil', '\\u2066', '\\u200b', '\\u2028']) expect(run.stderr).toContain(witness);
    }
    expect(name.stderr).toMatch(/^rulvar-mcp: tool\.invalid_name: .*tool name "bad/m);
    expect(failure.stderr).toMatch(/^rulvar-mcp: source\.protocol: .*listing failed \\x1b\[2J\\x1b\]52;c;cHduZWQ=\\x07/m);
    // The server's JSON-RPC message reaches stderr as it sent it: every class (C0 with NUL, BS,
    // CR LF; DEL; C1; bidi; invisible; separators) must show escaped, not be dropped.
    for (const witness of ESCAPED_WITNESSES) expect(failure.stderr).toContain(witness);
    expect(failure.stderr).toContain(everyControlEscaped());
  });

  it("the server's own stderr passes through with its line breaks and nothing else raw", async () => {
    const run = await bundle.run('inspect', '--stdio', bundle.fixture('--hostile-stderr'));
    expect(run.code).toBe(0);
    expectSafe(run.stderr);
    expect(run.stderr).toContain('server log: \\x1b[2J\\x1b]52;c;cHduZWQ=\\x07');
    for (const witness of ['\\x00', '\\x7f', '\\x9b31m', '\\u202e', '\\u{e0041}']) expect(run.stderr).toContain(witness);
    expect(run.stderr).toContain(everyControlEscaped(true));
    // Its own line break is kept: the log line ends where the server ended it.
    expect(run.stderr).toContain('\\r\nrulvar-mcp: ok');
  });

  it('in the progress line and the source id: a command named with control text shows it escaped', async () => {
    // A file name cannot hold NUL or '/': every other class goes in the name of a link to node.
    const name = `node${TERMINAL_CLASSES.esc}${TERMINAL_CLASSES.c1}${TERMINAL_CLASSES.bidi}`;
    const link = join(dir, name);
    await symlink(process.execPath, link);
    const server = bundle.fixture('--page-delay-ms 700').replace(/^node /, `'${link}' `);
    const run = await bundle.run('inspect', '--stdio', server);
    expect(run.code).toBe(0);
    expectSafe(run.stdout + run.stderr);
    const shown = 'node\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x9b31m\\x9d0;title\\x9c\\u202eevil\\u2066\\u2069\\u202c';
    expect(run.stderr).toContain(`sweeping mcp:stdio:${shown}…`);
    expect(run.stdout).toContain(`source mcp:stdio:${shown}: 3 tools`);
  });
});
