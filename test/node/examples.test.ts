/**
 * Every example in examples/ runs as a user would run it (node + tsx, importing the built
 * package), exits 0 on its own, and prints what the README says it prints.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { QUICKSTART_OUTPUT } from './docs-code.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

async function runExample(file: string, args: string[] = [], input?: string): Promise<string> {
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', `examples/${file}`, ...args], { cwd: root, timeout: 50_000 });
  if (input !== undefined) run.child.stdin?.end(input);
  return (await run).stdout;
}

describe.runIf(enabled)('examples', () => {
  it('demo.ts suspends in one process and resumes in another from the file journal, paying nothing twice', async () => {
    const out = await runExample('demo.ts');
    // The table says what a call will get under the demo's preset, which the run then meets.
    expect(out).toContain("what a call of each gets under the preset 'strict'");
    expect(out).toMatch(/notes_add_note\s+write\s+false\s+ask by ask-rule\n/);
    expect(out).toMatch(/notes_list_notes\s+read\s+false\s+allow by default\n/);
    expect(out).toMatch(/notes_delete_note\s+destructive\s+true\s+deny by deny-rule\n/);
    expect(out).toMatch(/notes_sleep\s+\(undeclared\)\s+false\s+ask by ask-rule\n/);
    const pids = [...out.matchAll(/Process (\d) \(pid (\d+)\)/g)].map((m) => [m[1], m[2]]);
    expect(pids.map(([n]) => n)).toEqual(['1', '2']);
    expect(pids[0]?.[1]).not.toBe(pids[1]?.[1]);
    expect(out).toMatch(/Run \S+ suspended\. Pending: notes_add_note \{"title":"groceries","body":"eggs, rice"\}/);
    expect(out).toContain('Model calls in process 1: 1\n');
    // The model's text as it streamed in, and the server's progress over stdio as tool:progress.
    expect(out).toContain('  process 1: model> Checking the notes, then saving the list.\n');
    expect(out).toMatch(/process 2: notes_add_note\s+progress 1\/2 \(checking the title\)\n {2}process 2: notes_add_note\s+progress 2\/2 \(stored\)\n/);
    expect(out).toContain('  process 2: model> Saved the groceries note; it reads "eggs, rice".\n');
    expect(out).toContain('Resolution journaled: allow by operator ("the list is fine"): true');
    expect(out).toMatch(/process 1: notes_list_notes\s+allow by default/);
    expect(out).toMatch(/process 1: notes_add_note\s+ask: the run suspends/);
    expect(out).toMatch(/process 2: notes_add_note\s+allow by operator \(ask-rule\)\s+-> \{"title":"groceries","count":1\}/);
    expect(out).toMatch(/process 2: notes_read_note\s+allow by default\s+-> "eggs, rice"/);
    expect(out).not.toMatch(/process 2: notes_list_notes/);
    // Turns count from 1, as in the browser demo: the first answer asked for both calls.
    expect(out).toContain('Audit trail (from the journal; turns count from 1):');
    expect(out).toMatch(/\n {2}1\s+notes_list_notes\s+allow \(default\)/);
    expect(out).toMatch(/\n {2}1\s+notes_add_note\s+ask \(ask-rule\) -> allow by operator/);
    expect(out).toMatch(/\n {2}2\s+notes_read_note\s+allow \(default\)/);
    expect(out).toContain('Result: {"text":"Saved the groceries note; it reads \\"eggs, rice\\".","turns":3}');
    expect(out).toContain('Model calls: 1 + 2 = 3 for 3 journaled turns (none requested twice).');
    expect(out).toContain('Tool runs: 1 + 2 = 3 for 3 journaled results of calls that ran (none run twice).');
  }, 60_000);

  it('demo.ts --interactive takes the decision typed at the terminal, and a deny ends in an answer that says so', async () => {
    const out = await runExample('demo.ts', ['--interactive'], 'n\nnot today\n');
    expect(out).toContain('Allow this call? [y/N]');
    expect(out).toContain('Resolution journaled: deny by operator ("not today"): true');
    expect(out).toMatch(/process 2: notes_add_note\s+deny by operator \(ask-rule\)\s+-> "permission denied: not today"/);
    // The model read the denial: it does not read back a note that was never saved, and its
    // answer agrees with the audit trail.
    expect(out).not.toMatch(/notes_read_note\s+allow/);
    expect(out).toMatch(/\n {2}1\s+notes_add_note\s+ask \(ask-rule\) -> deny by operator\s+"permission denied: not today"/);
    expect(out).toContain('Result: {"text":"I did not save the groceries note: permission denied: not today","turns":2}');
    expect(out).not.toContain('Saved the groceries note');
    expect(out).toContain('Model calls: 1 + 1 = 2 for 2 journaled turns (none requested twice).');
    expect(out).toContain('Tool runs: 1 + 0 = 1 for 1 journaled result of a call that ran (none run twice).');
  }, 60_000);

  it('tracing.ts prints the spans of a run that suspends and of its resume, linked to it', async () => {
    const out = await runExample('tracing.ts');
    expect(out).toBe(
      [
        'invoke_workflow remind  event rulvar.suspended',
        '  invoke_agent agent  event rulvar.suspended',
        '    chat any  tokens 40+8',
        '    execute_tool lookup  verdict allow',
        '    chat any',
        '    execute_tool send  event rulvar.approval.pending, event rulvar.suspended',
        'invoke_workflow remind  linked to the first run span',
        '  invoke_agent agent',
        '    execute_tool send  verdict ask, event rulvar.approval.resolved',
        '    chat any',
        'completed',
        '',
      ].join('\n'),
    );
  }, 60_000);

  it('spans.ts prints a run\'s spans in start order, each under its parent', async () => {
    const out = await runExample('spans.ts');
    expect(out).toBe(['invoke_workflow remind', '  invoke_agent agent', '    chat any', '    execute_tool lookup', '    chat any', ''].join('\n'));
  });

  it('approvals.ts suspends on a write, resolves it and resumes without paying twice', async () => {
    const out = await runExample('approvals.ts');
    expect(out).toContain(`suspended: notes_add_note tool "notes_add_note" needs approval (risk write: preset 'strict' asks approval for write tools)`);
    expect(out).toContain('completed Saved. model calls: 2');
  });

  it('quickstart.ts dispatches one call under two presets: standard runs it, strict asks', async () => {
    const out = await runExample('quickstart.ts');
    expect(out).toBe(QUICKSTART_OUTPUT);
  });

  it('permissions.ts shows the dry run and the chain at work', async () => {
    const out = await runExample('permissions.ts');
    expect(out).toMatch(/notes_delete_note\s+deny\s+by deny-rule \(strict\)/);
    expect(out).toMatch(/notes_sleep\s+deny\s+by deny-rule/);
    expect(out).toMatch(/notes_snapshot\s+ask\s+by ask-rule \(strict\)/);
    expect(out).toMatch(/notes_read_note\s+deny\s+by canUseTool/);
    expect(out).toContain('input ran with: {"title":"missing"}');
    expect(out).toContain('notes_delete_note -> permission denied');
  });

  it('toolset-identity.ts shows policy drift refused by an attestation', async () => {
    const out = await runExample('toolset-identity.ts');
    expect(out).toContain('same contracts: true, same authority: false');
    expect(out).toContain('refused: toolset.attestation_mismatch');
  });

  it('streaming.ts shows the text in the pieces it was streamed in, joined to the journaled answer', async () => {
    const out = await runExample('streaming.ts');
    expect(out).toBe('Streams |arrive i|n pieces|; the jo|urnal ke|eps the |whole.\nStreams arrive in pieces; the journal keeps the whole.\n');
  });

  it('bounds.ts refuses an endless sweep typed', async () => {
    const out = await runExample('bounds.ts');
    expect(out).toContain('ConfigError discovery.max_pages');
  });

  it('progress.ts prints each of its tool\'s progress reports as a tool:progress event, then the run completes', async () => {
    const out = await runExample('progress.ts');
    expect(out).toBe(['fetch_report: 1/3 (page 1 of 3)', 'fetch_report: 2/3 (page 2 of 3)', 'fetch_report: 3/3 (page 3 of 3)', 'completed', ''].join('\n'));
  });
});

describe('examples quoted by the docs', () => {
  // The README and the guides show these files' code (without their one-line header comment);
  // a change to either must reach the other, or readers copy code that no test runs.
  it.each([
    ['README.md', 'quickstart.ts'],
    ['docs/engine.md', 'approvals.ts'],
    ['README.md', 'streaming.ts'],
    ['README.md', 'progress.ts'],
    ['README.md', 'spans.ts'],
    ['docs/traces.md', 'tracing.ts'],
  ])('%s quotes examples/%s verbatim', async (doc, file) => {
    const readme = await readFile(`${root}/${doc}`, 'utf8');
    const code = (await readFile(`${root}/examples/${file}`, 'utf8')).split('\n').slice(1).join('\n').trimEnd();
    expect(readme).toContain('```ts\n' + code + '\n```');
  });
});
