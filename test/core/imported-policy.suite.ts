/**
 * The permission chain over imported tools, through dispatchTool (spec/mcp.md): rules match
 * the final (prefixed) name, a deny is an error result carrying the policy's reason and sends
 * nothing to the server, and domain rules stay advisory.
 */
import type { DomainRule } from '../../src/core/index.js';
import { createPagedServer } from '../fixtures/paged-server.js';
import { flavours } from './flavours.js';
import type { SuiteHarness } from './harness.js';

export function importedPolicySuite(h: SuiteHarness): void {
  const { mcp, resolveToolset, dispatchTool } = h.lib;

  /** Tools x and fetch behind prefix gh, from a server that records every tools/call. */
  const github = async () => {
    const paged = createPagedServer({ pages: [['x', 'fetch']] });
    const source = mcp({ transport: 'inprocess', server: paged.server, prefix: 'gh' });
    return { paged, source, toolset: await resolveToolset([source]) };
  };

  h.describe('permissions over imported tools', () => {
    h.it('rules match the final (prefixed) name; a rule on the server name matches nothing', async () => {
      const { paged, source, toolset } = await github();
      await using _ = source;
      const byFinal = { tool: 'gh_x' };
      const denied = await dispatchTool(toolset, { id: '1', name: 'gh_x', input: {} }, { permissions: { deny: [byFinal] } });
      h.expect(denied).toMatchObject({
        status: 'done',
        result: { callId: '1', toolName: 'gh_x', isError: true, reason: 'denied' },
        audit: { verdict: 'deny', layer: 'deny-rule' },
      });
      h.expect(denied.audit.rule).toBe(byFinal);
      h.expect(paged.toolCalls).toEqual([]);

      const asked = await dispatchTool(toolset, { id: '2', name: 'gh_x', input: {} }, { permissions: { ask: [{ tool: ['gh_x'] }] } });
      h.expect(asked).toMatchObject({ status: 'ask', audit: { verdict: 'ask', layer: 'ask-rule' } });

      const unprefixed = { deny: [{ tool: 'x' }], ask: [{ tool: 'x' }] };
      const allowed = await dispatchTool(toolset, { id: '3', name: 'gh_x', input: {} }, { permissions: unprefixed });
      h.expect(allowed).toMatchObject({
        status: 'done',
        result: { toolName: 'gh_x', isError: false, output: 'called x' },
        audit: { verdict: 'allow', layer: 'default' },
      });
      h.expect(paged.toolCalls.map((c) => c.name)).toEqual(['x']);
    });

    for (const flavour of flavours(h)) {
      h.it(`${flavour.name}: a denied imported tool is a denied error result with the policy's reason; nothing reaches the server`, async () => {
        const servers: ReturnType<typeof createPagedServer>[] = [];
        await using source = flavour.open(
          () => {
            const paged = createPagedServer({ pages: [['x', 'fetch']] });
            servers.push(paged);
            return paged.server;
          },
          { prefix: 'gh' },
        );
        const toolset = await resolveToolset([source]);
        const seen: string[] = [];
        const hook = (call: { toolName: string }) => (seen.push(call.toolName), { verdict: 'deny' as const, reason: 'no writes on Fridays' });
        const outcome = await dispatchTool(toolset, { id: 'd1', name: 'gh_x', input: { body: 'hi' } }, { permissions: { hooks: [hook] } });
        h.expect(outcome).toMatchObject({
          status: 'done',
          result: { callId: 'd1', toolName: 'gh_x', isError: true, reason: 'denied' },
          audit: { verdict: 'deny', layer: 'hook', reason: 'no writes on Fridays' },
        });
        h.expect(outcome.status === 'done' && outcome.result.output).toBe('permission denied: no writes on Fridays');
        h.expect(seen).toEqual(['gh_x']);
        h.expect(servers.length).toBeGreaterThan(0);
        h.expect(servers.flatMap((s) => s.toolCalls)).toEqual([]);
      });
    }

    h.it('a matching domain rule never changes the verdict and is reported in audit.advisory', async () => {
      const { paged, source, toolset } = await github();
      await using _ = source;
      const rule: DomainRule = { tool: 'gh_fetch', domains: ['example.com'] };
      const onServerName: DomainRule = { tool: 'fetch', domains: ['example.com'] };
      const input = { url: 'https://example.com/issues' };
      const call = (id: string) => ({ id, name: 'gh_fetch', input });

      const plain = await dispatchTool(toolset, call('1'), { permissions: { domains: [onServerName] } });
      const flagged = await dispatchTool(toolset, call('2'), { permissions: { domains: [rule, onServerName] } });
      h.expect(plain).toMatchObject({ status: 'done', result: { isError: false, output: 'called fetch' }, audit: { verdict: 'allow', layer: 'default' } });
      h.expect(plain.audit.advisory).toEqual([]);
      h.expect(flagged).toMatchObject({ status: 'done', result: { isError: false, output: 'called fetch' }, audit: { verdict: 'allow', layer: 'default' } });
      h.expect(flagged.audit.advisory).toEqual([rule]);
      h.expect(paged.toolCalls.map((c) => c.name)).toEqual(['fetch', 'fetch']);

      // An ask stays an ask and a deny stays a deny, each still reporting the match.
      const asked = await dispatchTool(toolset, call('3'), { permissions: { domains: [rule], ask: [{ tool: 'gh_fetch' }] } });
      h.expect([asked.status, asked.audit.verdict, asked.audit.layer, asked.audit.advisory]).toEqual(['ask', 'ask', 'ask-rule', [rule]]);
      const denied = await dispatchTool(toolset, call('4'), { permissions: { domains: [rule], deny: [{ tool: 'gh_fetch' }] } });
      h.expect([denied.status, denied.audit.verdict, denied.audit.layer, denied.audit.advisory]).toEqual(['done', 'deny', 'deny-rule', [rule]]);
      h.expect(paged.toolCalls).toHaveLength(2);
    });
  });
}
