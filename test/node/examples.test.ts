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

async function runExample(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    cwd: root,
    timeout: 30_000,
  });
  return stdout;
}

describe.runIf(enabled)('examples', () => {
  it('demo.ts prints the imported toolset table and a call result', async () => {
    const out = await runExample('demo.ts');
    expect(out).toContain('notes_delete_note');
    expect(out).toMatch(/notes_delete_note\s+destructive\s+true/);
    expect(out).toMatch(/notes_sleep\s+\(undeclared\)\s+false/);
    // The approval path: the write asks under 'strict', the run suspends after one model
    // call, a second engine approves and resumes, and nothing is paid or run twice.
    expect(out).toMatch(/Run \S+ suspended: notes_add_note \{"title":"groceries","body":"eggs, rice"\} waits/);
    expect(out).toContain('Model calls so far: 1\n');
    expect(out).toContain('An operator approves it through engine 2: true');
    expect(out).toMatch(/engine 1: notes_add_note\s+ask: the run suspends/);
    expect(out).toMatch(/engine 2: notes_add_note\s+allow by operator \(ask-rule\)\s+-> \{"title":"groceries","count":1\}/);
    expect(out).toMatch(/engine 2: notes_read_note\s+allow by default\s+-> "eggs, rice"/);
    expect(out).not.toMatch(/engine 2: notes_list_notes/);
    expect(out).toContain('Model calls: 3 for 3 turns (none requested twice); notes_add_note ran 1 time(s).');
  });

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
