/**
 * What an audit says in every runtime: the reason each layer gives (the text a model reads on
 * a deny), how rules describe themselves in it, and which optional fields an audit carries.
 * Rule reasons are asserted whole, since they are the documented "tool X needs approval
 * (rule …)" form; reasons of the other layers only for what they must name.
 */
import type { PermissionConfig, PermissionDecision, ToolCallInfo } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { callInfo, spy } from './permission-helpers.js';

const TOOL = '"gh_create_comment"';
const DENIED = `tool ${TOOL} is denied by policy`;
const ASKED = `tool ${TOOL} needs approval`;

/** [what, config, call, the whole reason] */
const RULE_REASONS: ReadonlyArray<readonly [string, PermissionConfig, Partial<ToolCallInfo>, string]> = [
  ['a tool rule', { deny: [{ tool: 'gh_create_comment' }] }, {}, `${DENIED} (tool gh_create_comment)`],
  ['a one-tool list', { ask: [{ tool: ['gh_create_comment'] }] }, {}, `${ASKED} (tool gh_create_comment)`],
  [
    'a tool list with a description',
    { deny: [{ tool: ['a', 'gh_create_comment'], description: 'never from CI' }] },
    {},
    `${DENIED} (tool [a, gh_create_comment]: never from CI)`,
  ],
  ['a risk rule', { ask: [{ risk: 'write' }] }, { risk: 'write' }, `${ASKED} (risk write)`],
  ['a risk list', { deny: [{ risk: ['network', 'write'] }] }, { risk: 'write' }, `${DENIED} (risk [network, write])`],
  [
    "a preset's deny",
    { preset: 'strict' },
    { risk: 'destructive' },
    `${DENIED} (risk destructive: preset 'strict' denies destructive tools)`,
  ],
  [
    "a preset's ask for an undeclared risk",
    { preset: 'standard' },
    {},
    `${ASKED} (risk undeclared: preset 'standard' asks approval for tools without a declared risk)`,
  ],
];

const VERBS = { allow: 'allowed tool', deny: 'denied tool', ask: 'asks approval for tool' } as const;

export function permissionReasonsSuite(h: SuiteHarness): void {
  const { evaluatePermission, dispatchTool, resolveToolset, tool } = h.lib;

  h.describe('permission reasons', () => {
    for (const [what, config, call, reason] of RULE_REASONS) {
      h.it(`${what} is named in the reason`, async () => {
        h.expect((await evaluatePermission(config, callInfo(call))).reason).toBe(reason);
      });
    }

    for (const [verdict, verb] of Object.entries(VERBS) as Array<[keyof typeof VERBS, string]>) {
      h.it(`a bare '${verdict}' names the layer that gave it and the tool`, async () => {
        const byHook = await evaluatePermission({ hooks: [() => undefined, () => verdict] }, callInfo());
        const byCan = await evaluatePermission({ canUseTool: () => verdict }, callInfo());
        h.expect(byHook.reason).toContain(`permission hook #2 ${verb} ${TOOL}`);
        h.expect(byCan.reason).toContain(`canUseTool ${verb} ${TOOL}`);
      });
    }

    h.it("a decision's reason is used only when it is a string", async () => {
      const odd = { verdict: 'deny', reason: 42 } as unknown as PermissionDecision;
      const audit = await evaluatePermission({ hooks: [() => odd] }, callInfo());
      h.expect(audit.reason).toContain(`permission hook #1 denied tool ${TOOL}`);
    });

    h.it('the terminal default names the tool, and says why it asks', async () => {
      const allowed = await evaluatePermission({}, callInfo());
      const asked = await evaluatePermission({}, callInfo({ needsApproval: true }));
      h.expect(allowed.reason).toContain(TOOL);
      h.expect(asked.reason).toContain(TOOL);
      h.expect(asked.reason).toContain('approval');
    });
  });

  h.describe('permission audit fields', () => {
    // `rule?` and `preset?` are absent, not undefined, when no rule decided: an audit is
    // journaled and compared as data.
    const keys = (audit: object) => Object.keys(audit).sort();
    const BASE = ['advisory', 'input', 'layer', 'reason', 'verdict'];

    h.it('an audit names a rule and a preset only when one decided', async () => {
      const byDefault = await evaluatePermission({ canUseTool: spy(undefined).canUseTool }, callInfo());
      const byHook = await evaluatePermission({ hooks: [() => 'deny' as const] }, callInfo());
      const byHostRule = await evaluatePermission({ deny: [{ tool: 'gh_create_comment' }] }, callInfo());
      const byPreset = await evaluatePermission({ preset: 'strict' }, callInfo());
      h.expect([keys(byDefault), keys(byHook)]).toEqual([BASE, BASE]);
      h.expect(keys(byHostRule)).toEqual([...BASE, 'rule'].sort());
      h.expect(keys(byPreset)).toEqual([...BASE, 'preset', 'rule'].sort());
    });

    h.it("the terminal default's allow is one frozen audit per tool, reading as before; domain rules and asks get their own", async () => {
      const toolNamed = (name: string, needsApproval = false) => tool({ name, description: 'd', parameters: { type: 'object' }, needsApproval, execute: () => 'ok' });
      const toolset = await resolveToolset([toolNamed('gh_create_comment'), toolNamed('other_tool'), toolNamed('pay', true)]);
      const auditOf = async (name: string, permissions: PermissionConfig = {}, input: unknown = { body: 'x' }) =>
        (await dispatchTool(toolset, { id: 'c', name, input }, { permissions })).audit;
      const first = await auditOf('gh_create_comment');
      h.expect(await auditOf('gh_create_comment', { deny: [{ tool: 'other' }] }, { body: 'else' })).toBe(first);
      h.expect(Object.isFrozen(first) && Object.isFrozen(first.advisory)).toBe(true);
      h.expect(JSON.stringify(first)).toBe(JSON.stringify({ verdict: 'allow', layer: 'default', advisory: [], reason: `no permission layer objected to tool ${TOOL}` }));
      const other = await auditOf('other_tool');
      h.expect(other).not.toBe(first);
      h.expect(other.reason).toBe('no permission layer objected to tool "other_tool"');
      // An advisory scan depends on the input, and an ask is no default allow: neither is shared.
      const domains: PermissionConfig = { domains: [{ tool: 'gh_create_comment', domains: ['example.com'] }] };
      const scanned = [await auditOf('gh_create_comment', domains), await auditOf('gh_create_comment', domains)];
      h.expect(scanned[0]).not.toBe(scanned[1]);
      h.expect(scanned[0]).toEqual(first);
      const asks = [await auditOf('pay'), await auditOf('pay')];
      h.expect(asks[0]?.verdict).toBe('ask');
      h.expect(asks[0]).not.toBe(asks[1]);
    });

    h.it('past 1,024 tool names the shared audits start over, each still naming its own tool', async () => {
      const names = Array.from({ length: 1_100 }, (_, i) => `tool_${i}`);
      const toolset = await resolveToolset(names.map((name) => tool({ name, description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })));
      const auditOf = async (name: string) => (await dispatchTool(toolset, { id: 'c', name, input: {} }, {})).audit;
      for (const name of names) h.expect((await auditOf(name)).reason).toBe(`no permission layer objected to tool "${name}"`);
      const head = await auditOf('tool_0');
      h.expect(head.reason).toBe('no permission layer objected to tool "tool_0"');
      h.expect(await auditOf('tool_0')).toBe(head);
    });
  });
}
