/**
 * Permission presets in every runtime: spec/mcp.md's table cell by cell (every preset ×
 * every risk class and undeclared × needsApproval), and how preset rules sit after the
 * host's own. The chain's layer order, merging and domain rules have their own suites.
 */
import type { PermissionPreset, RiskClass, ToolRisk } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';
import { callInfo } from './permission-helpers.js';

/** spec/mcp.md's table, transcribed by hand (not derived from the library). */
const TABLE = `
  read         allow  allow     allow
  write        ask    allow     allow
  network      ask    ask       allow
  execute      ask    ask       allow
  destructive  deny   ask       allow
  undeclared   ask    ask       allow
`;
const PRESETS = ['strict', 'standard', 'open'] as const;
const ROWS = TABLE.trim()
  .split('\n')
  .map((line) => line.trim().split(/\s+/) as [RiskClass, ...string[]]);

export function permissionsSuite(h: SuiteHarness): void {
  const { evaluatePermission, compilePermissionPreset } = h.lib;

  h.describe('permission presets (spec/mcp.md table)', () => {
    for (const [risk, ...cells] of ROWS) {
      PRESETS.forEach((preset, column) => {
        for (const needsApproval of [false, true]) {
          const cell = cells[column];
          const verdict = cell === 'allow' ? (needsApproval ? 'ask' : 'allow') : cell;
          const layer = cell === 'deny' ? 'deny-rule' : cell === 'ask' ? 'ask-rule' : 'default';
          h.it(`${preset} × ${risk} × needsApproval ${needsApproval} → ${verdict} (${layer})`, async () => {
            const call = callInfo({ needsApproval, ...(risk === 'undeclared' ? {} : { risk: risk as ToolRisk }) });
            const audit = await evaluatePermission({ preset }, call);
            h.expect([audit.verdict, audit.layer]).toEqual([verdict, layer]);
            if (layer !== 'default') h.expect(audit.preset).toBe(preset);
          });
        }
      });
    }

    h.it('open compiles to no rules; strict and standard to risk rules only', () => {
      h.expect(compilePermissionPreset('open')).toEqual({ deny: [], ask: [] });
      const strict = compilePermissionPreset('strict');
      h.expect(strict.deny.map((r) => r.risk)).toEqual(['destructive']);
      h.expect(strict.ask.map((r) => r.risk)).toEqual(['write', 'network', 'execute', 'undeclared']);
      h.expect(compilePermissionPreset('standard').deny).toEqual([]);
    });

    h.it("preset rules come after the host's own, so the host's rule is the one named", async () => {
      const mine = { tool: 'gh_create_comment', description: 'never from CI' };
      const audit = await evaluatePermission({ preset: 'strict', deny: [mine] }, callInfo({ risk: 'destructive' }));
      h.expect(audit.rule).toBe(mine);
      h.expect(audit.preset).toBeUndefined();
      h.expect(audit.reason).toContain('never from CI');
    });

    h.it("a preset deny still denies when the host's own ask rule matches", async () => {
      const audit = await evaluatePermission({ preset: 'strict', ask: [{ tool: 'gh_create_comment' }] }, callInfo({ risk: 'destructive' }));
      h.expect([audit.verdict, audit.layer, audit.preset]).toEqual(['deny', 'deny-rule', 'strict']);
    });

    h.it('an unknown risk label counts as undeclared', async () => {
      const audit = await evaluatePermission({ deny: [{ risk: 'undeclared' }] }, callInfo({ risk: 'harmless' as ToolRisk }));
      h.expect(audit.verdict).toBe('deny');
    });

    h.it('a tool rule names one whole tool, never a part of one', async () => {
      const audit = await evaluatePermission({ deny: [{ tool: 'gh_create_comment_v2' }] }, callInfo());
      h.expect(audit.verdict).toBe('allow');
    });

    h.it('refuses an unknown preset, saying what it was given', async () => {
      const refuse = (preset: unknown) =>
        expectConfigError(h, () => compilePermissionPreset(preset as PermissionPreset), 'config.invalid_value');
      h.expect(await refuse('lax')).toBe('permission preset must be one of strict, standard, open (got "lax")');
      h.expect(await refuse(3)).toContain('(got number)');
      h.expect(await refuse('x'.repeat(100))).toContain(`(got "${'x'.repeat(40)}")`);
    });

    h.it('rules match final names and risk classes, one or a list', async () => {
      const byName = await evaluatePermission({ deny: [{ tool: ['a', 'gh_create_comment'] }] }, callInfo());
      const byRisk = await evaluatePermission({ ask: [{ risk: ['read', 'write'] }] }, callInfo({ risk: 'write' }));
      const neither = await evaluatePermission({ deny: [{ tool: 'create_comment' }, { risk: 'read' }] }, callInfo({ risk: 'write' }));
      h.expect([byName.verdict, byRisk.verdict, neither.verdict]).toEqual(['deny', 'ask', 'allow']);
    });
  });
}
