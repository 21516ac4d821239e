/**
 * Every example in examples/ runs as a user would run it (node + tsx, importing the built
 * package), exits 0 on its own, and prints what the README says it prints.
 */
import { execFile } from 'node:child_process';
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
    expect(out).toContain('notes_add_note -> {"title":"groceries","count":1}');
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
