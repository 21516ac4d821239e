/**
 * Permission configs in every runtime: merging engine-level and profile-level configs (and
 * longer lists), and refusing malformed configs typed, naming the key at fault.
 */
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';
import { callInfo, spy } from './permission-helpers.js';

const RISKS = 'one of read, write, network, execute, destructive, undeclared or an array of them';
const NAMES = 'a tool name or an array of tool names';
const HOST = "a host such as 'example.com' or '*.example.com'";
const X40 = 'x'.repeat(40);

/** [config, the whole message]: each names the path at fault and renders what it got. */
const MESSAGES: ReadonlyArray<readonly [unknown, string]> = [
  ['strict', `'permissions' must be an object (got "strict")`],
  [null, "'permissions' must be an object (got null)"],
  [[], "'permissions' must be an object (got an array)"],
  [42, "'permissions' must be an object (got 42)"],
  [true, "'permissions' must be an object (got true)"],
  [
    { prest: 'strict' },
    "unknown key 'permissions.prest' (known: preset, hooks, deny, ask, canUseTool, domains, approvalDeadlineMs, approvalTimeoutDecision)",
  ],
  [{ preset: X40 }, `'permissions.preset' must be one of strict, standard, open (got "${X40}")`],
  [{ preset: `${X40}y` }, `'permissions.preset' must be one of strict, standard, open (got "${X40}…")`],
  [{ hooks: 'deny' }, `'permissions.hooks' must be an array (got "deny")`],
  [{ hooks: [{}] }, "'permissions.hooks[0]' must be a function (got object)"],
  [{ deny: {} }, "'permissions.deny' must be an array (got object)"],
  [{ ask: [null] }, "'permissions.ask[0]' must be an object naming tool or risk (got null)"],
  [{ deny: [{ tool: 'a', allow: true }] }, "unknown key 'permissions.deny[0].allow' (known: tool, risk, description)"],
  [{ ask: [{ tool: 'a', risk: 'read' }] }, "'permissions.ask[0]' must be a rule naming exactly one of tool or risk (got object)"],
  [{ deny: [{ tool: '' }] }, `'permissions.deny[0].tool' must be ${NAMES} (got "")`],
  [{ deny: [{ tool: 5 }] }, `'permissions.deny[0].tool' must be ${NAMES} (got 5)`],
  [{ deny: [{ tool: ['a', ''] }] }, `'permissions.deny[0].tool' must be ${NAMES} (got an array)`],
  [{ deny: [{ tool: ['a', 5] }] }, `'permissions.deny[0].tool' must be ${NAMES} (got an array)`],
  [{ deny: [{ risk: ['read', 'harmless'] }] }, `'permissions.deny[0].risk' must be ${RISKS} (got an array)`],
  [{ ask: [{ risk: 'read', description: 5 }] }, "'permissions.ask[0].description' must be a string (got 5)"],
  [{ canUseTool: 'allow' }, `'permissions.canUseTool' must be a function (got "allow")`],
  [{ domains: 'example.com' }, `'permissions.domains' must be an array (got "example.com")`],
  [{ domains: [null] }, "'permissions.domains[0]' must be an object with tool and domains (got null)"],
  [{ domains: [{ tool: 'a', domains: [], to: 1 }] }, "unknown key 'permissions.domains[0].to' (known: tool, domains)"],
  [{ domains: [{ tool: '', domains: [] }] }, `'permissions.domains[0].tool' must be ${NAMES} (got "")`],
  [{ domains: [{ tool: 'a', domains: 'x.com' }] }, `'permissions.domains[0].domains' must be an array (got "x.com")`],
  [{ domains: [{ tool: 'a', domains: ['x.com', 5] }] }, `'permissions.domains[0].domains[1]' must be ${HOST} (got 5)`],
  [{ domains: [{ tool: 'a', domains: ['.'] }] }, `'permissions.domains[0].domains[0]' must be ${HOST} (got ".")`],
  [{ domains: [{ tool: 'a', domains: ['*.'] }] }, `'permissions.domains[0].domains[0]' must be ${HOST} (got "*.")`],
  [{ domains: [{ tool: 'a', domains: ['exa<mple.com'] }] }, `'permissions.domains[0].domains[0]' must be ${HOST} (got "exa<mple.com")`],
  [{ approvalDeadlineMs: 0 }, "'permissions.approvalDeadlineMs' must be a positive number of milliseconds, at most ten years (got 0)"],
  [{ approvalDeadlineMs: Infinity }, "'permissions.approvalDeadlineMs' must be a positive number of milliseconds, at most ten years (got Infinity)"],
  [{ approvalDeadlineMs: 1e300 }, "'permissions.approvalDeadlineMs' must be a positive number of milliseconds, at most ten years (got 1e+300)"],
  [{ approvalDeadlineMs: NaN }, "'permissions.approvalDeadlineMs' must be a positive number of milliseconds, at most ten years (got NaN)"],
  [{ approvalDeadlineMs: '10' }, `'permissions.approvalDeadlineMs' must be a positive number of milliseconds, at most ten years (got "10")`],
  [{ approvalTimeoutDecision: 'ask' }, `'permissions.approvalTimeoutDecision' must be 'deny' or 'allow' (got "ask")`],
];

export function permissionConfigSuite(h: SuiteHarness): void {
  const { evaluatePermission, mergePermissionConfigs, validatePermissionConfig } = h.lib;

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

    h.it('a merged config sets only what some scope set', () => {
      h.expect(Object.keys(mergePermissionConfigs({}, undefined)).sort()).toEqual(['ask', 'deny', 'domains', 'hooks']);
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

  h.describe('permission config validation messages', () => {
    // Numbered, since two configs may earn the same message and names must be unique.
    MESSAGES.forEach(([config, message], i) => {
      h.it(`#${i + 1} says ${message}`, async () => {
        const code = message.startsWith('unknown key') ? 'config.unknown_key' : 'config.invalid_value';
        h.expect(await expectConfigError(h, () => validatePermissionConfig(config), code)).toBe(message);
      });
    });

    h.it('prefixes paths with the label it is given, permissions by default', async () => {
      const plain = await expectConfigError(h, () => validatePermissionConfig({ ask: 1 }), 'config.invalid_value');
      const labelled = await expectConfigError(h, () => validatePermissionConfig({ ask: 1 }, 'profile'), 'config.invalid_value');
      h.expect([plain, labelled]).toEqual([
        "'permissions.ask' must be an array (got 1)",
        "'profile.ask' must be an array (got 1)",
      ]);
    });

    h.it('admits the edge values it documents', () => {
      const fine = [
        { approvalTimeoutDecision: 'deny' },
        { approvalTimeoutDecision: 'allow' },
        { approvalDeadlineMs: 0.5 },
        { deny: [{ tool: ['a', 'b'], description: 'x' }], ask: [{ risk: ['read', 'undeclared'] }] },
        { domains: [{ tool: ['a', 'b'], domains: ['Example.COM.', '*.bücher.de'] }] },
      ];
      for (const config of fine) h.expect(() => validatePermissionConfig(config)).not.toThrow();
    });
  });
}
