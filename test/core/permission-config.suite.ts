/**
 * Permission configs in every runtime: merging engine-level and profile-level configs (and
 * longer lists), and refusing malformed configs typed, naming the key at fault.
 */
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';
import { callInfo, spy } from './permission-helpers.js';

export function permissionConfigSuite(h: SuiteHarness): void {
  const { evaluatePermission, mergePermissionConfigs } = h.lib;

  h.describe('permission config merging', () => {
    h.it('runs engine hooks before profile hooks', async () => {
      const order: string[] = [];
      const engine = { hooks: [() => void order.push('engine')] };
      const profile = { hooks: [() => void order.push('profile')] };
      await evaluatePermission([engine, profile], callInfo());
      h.expect(order).toEqual(['engine', 'profile']);
    });

    h.it("a profile canUseTool replaces the engine's; otherwise the engine's applies", async () => {
      const engine = spy('deny');
      const profile = spy('allow');
      const replaced = await evaluatePermission([{ canUseTool: engine.canUseTool }, { canUseTool: profile.canUseTool }], callInfo());
      h.expect([replaced.verdict, engine.seen.length, profile.seen.length]).toEqual(['allow', 0, 1]);
      const inherited = await evaluatePermission([{ canUseTool: engine.canUseTool }, { deny: [] }], callInfo());
      h.expect([inherited.verdict, engine.seen.length]).toEqual(['deny', 1]);
    });

    h.it('concatenates deny and ask rules, engine first', async () => {
      const engine = { deny: [{ tool: 'a' }], ask: [{ tool: 'gh_create_comment' }] };
      const profile = { deny: [{ tool: 'b' }] };
      const judge = (toolName: string) => evaluatePermission([engine, profile], callInfo({ toolName }));
      const audits = await Promise.all(['a', 'b', 'gh_create_comment'].map(judge));
      h.expect(audits.map((a) => a.verdict)).toEqual(['deny', 'deny', 'ask']);
      h.expect(mergePermissionConfigs(engine, profile).deny).toEqual([{ tool: 'a' }, { tool: 'b' }]);
    });

    h.it('presets accumulate: a profile can tighten the engine preset but not loosen it', async () => {
      const loosened = await evaluatePermission([{ preset: 'strict' }, { preset: 'open' }], callInfo({ risk: 'destructive' }));
      const tightened = await evaluatePermission([{ preset: 'open' }, { preset: 'strict' }], callInfo({ risk: 'write' }));
      h.expect([loosened.verdict, loosened.preset, tightened.verdict, tightened.preset]).toEqual(['deny', 'strict', 'ask', 'strict']);
      h.expect(mergePermissionConfigs({ preset: 'strict' }, { preset: 'strict' }).ask?.length).toBe(4);
    });

    h.it('a merged config evaluates exactly like the list it came from', async () => {
      const engine = {
        preset: 'standard' as const,
        ask: [{ tool: 'x' }],
        domains: [{ tool: 'gh_create_comment', domains: ['example.com'] }],
      };
      const profile = { deny: [{ risk: 'network' as const }], approvalDeadlineMs: 1000 };
      for (const risk of ['read', 'network', 'execute'] as const) {
        const call = callInfo({ risk, input: { url: 'https://example.com/' } });
        const merged = await evaluatePermission(mergePermissionConfigs(engine, profile), call);
        h.expect(merged).toEqual(await evaluatePermission([engine, profile], call));
      }
    });

    h.it('the later scope sets approval timing; undefined scopes are skipped', () => {
      const engine = { approvalDeadlineMs: 10, approvalTimeoutDecision: 'allow' as const };
      const merged = mergePermissionConfigs(engine, undefined, { approvalDeadlineMs: 20 });
      h.expect([merged.approvalDeadlineMs, merged.approvalTimeoutDecision, merged.preset]).toEqual([20, 'allow', undefined]);
    });
  });

  h.describe('permission config validation', () => {
    const CASES: ReadonlyArray<readonly [string, unknown, string, string]> = [
      ['a config that is not an object', 'strict', 'config.invalid_value', "'permissions'"],
      ['a misspelled key', { prest: 'strict' }, 'config.unknown_key', 'permissions.prest'],
      ['an unknown preset', { preset: 'lax' }, 'config.invalid_value', 'permissions.preset'],
      ['an unknown risk class', { deny: [{ risk: 'harmless' }] }, 'config.invalid_value', 'permissions.deny[0].risk'],
      ['a rule naming tool and risk', { ask: [{ tool: 'a', risk: 'read' }] }, 'config.invalid_value', 'permissions.ask[0]'],
      ['a rule naming neither', { deny: [{}] }, 'config.invalid_value', 'permissions.deny[0]'],
      ['a rule with an allow key', { deny: [{ tool: 'a', allow: true }] }, 'config.unknown_key', 'permissions.deny[0].allow'],
      ['a hook that is not a function', { hooks: ['deny'] }, 'config.invalid_value', 'permissions.hooks[0]'],
      ['a domain that is not a host', { domains: [{ tool: 'a', domains: ['https://x.com/'] }] }, 'config.invalid_value', 'domains[0].domains[0]'],
      ['a wildcard in the middle', { domains: [{ tool: 'a', domains: ['a.*.com'] }] }, 'config.invalid_value', 'domains[0].domains[0]'],
      ['a negative deadline', { approvalDeadlineMs: -1 }, 'config.invalid_value', 'approvalDeadlineMs'],
    ];
    for (const [label, config, code, mentions] of CASES) {
      h.it(`refuses ${label} (${code})`, async () => {
        const message = await expectConfigError(h, () => evaluatePermission(config as never, callInfo()), code);
        h.expect(message).toContain(mentions);
      });
    }

    h.it('names the scope of a bad config in a list', async () => {
      const configs = [{}, { deny: [{ risk: 'x' }] }] as never;
      const message = await expectConfigError(h, () => evaluatePermission(configs, callInfo()), 'config.invalid_value');
      h.expect(message).toContain('permissions[1].deny[0].risk');
    });
  });
}