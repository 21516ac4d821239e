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
    expect(out).toMatch(/notes_delete_note\s+destructive\s+true/);
    expect(out).toMatch(/notes_sleep\s+\(undeclared\)\s+false/);
    const pids = [...out.matchAll(/Process (\d) \(pid (\d+)\)/g)].map((m) => [m[1], m[2]]);
    expect(pids.map(([n]) => n)).toEqual(['1', '2']);
    expect(pids[0]?.[1]).not.toBe(pids[1]?.[1]);
    expect(out).toMatch(/Run \S+ suspended\. Pending: notes_add_note \{"title":"groceries","body":"eggs, rice"\}/);
    expect(out).toContain('Model calls in process 1: 1\n');
    expect(out).toContain('Resolution journaled: allow by operator ("the list is fine"): true');
    expect(out).toMatch(/process 1: notes_list_notes\s+allow by default/);
    expect(out).toMatch(/process 1: notes_add_note\s+ask: the run suspends/);
    expect(out).toMatch(/process 2: notes_add_note\s+allow by operator \(ask-rule\)\s+-> \{"title":"groceries","count":1\}/);
    expect(out).toMatch(/process 2: notes_read_note\s+allow by default\s+-> "eggs, rice"/);
    expect(out).not.toMatch(/process 2: notes_list_notes/);
    expect(out).toMatch(/0\s+notes_add_note\s+ask \(ask-rule\) -> allow by operator/);
    expect(out).toContain('Model calls: 1 + 2 = 3 for 3 journaled turns (none requested twice).');
    expect(out).toContain('Tool runs: 1 + 2 = 3 for 3 journaled results of calls that ran (none run twice).');
  }, 60_000);

  it('demo.ts --interactive takes the decision typed at the terminal', async () => {
    const out = await runExample('demo.ts', ['--interactive'], 'n\nnot today\n');
    expect(out).toContain('Allow this call? [y/N]');
    expect(out).toContain('Resolution journaled: deny by operator ("not today"): true');
    expect(out).toMatch(/process 2: notes_add_note\s+deny by operator \(ask-rule\)\s+-> "permission denied: not today"/);
    expect(out).toContain('Model calls: 1 + 2 = 3 for 3 journaled turns (none requested twice).');
    expect(out).toContain('Tool runs: 1 + 1 = 2 for 2 journaled results of calls that ran (none run twice).');
  }, 60_000);

  it('approvals.ts suspends on a write, resolves it and resumes without paying twice', async () => {
    const out = await runExample('approvals.ts');
    expect(out).toContain(`suspended: notes_add_note tool "notes_add_note" needs approval (risk write: preset 'strict' asks approval for write tools)`);
    expect(out).toContain('completed Saved. model calls: 2');
  });

  it('quickstart.ts dispatches one audited call', async () => {
    const out = await runExample('quickstart.ts');
    expect(out).toContain("output: { title: 'hello', count: 1 }");
    expect(out).toContain("verdict: 'allow'");
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

  it('bounds.ts refuses an endless sweep typed', async () => {
    const out = await runExample('bounds.ts');
    expect(out).toContain('ConfigError discovery.max_pages');
  });
});

describe('README examples', () => {
  // The README shows these files' code (without their one-line header comment); a change to
  // either must reach the other, or readers copy code that no test runs.
  it.each(['quickstart.ts', 'approvals.ts'])('the README quotes examples/%s verbatim', async (file) => {
    const readme = await readFile(`${root}/README.md`, 'utf8');
    const code = (await readFile(`${root}/examples/${file}`, 'utf8')).split('\n').slice(1).join('\n').trimEnd();
    expect(readme).toContain('```ts\n' + code + '\n```');
  });
});
