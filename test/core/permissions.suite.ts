/**
 * The permission chain in every runtime: the preset table of spec/mcp.md cell by cell, the
 * fixed layer order (each layer decides before the next, and later layers are not even
 * consulted), input rewriting, fail-closed callbacks, merging and config validation.
 * Domain rules have their own suite (domains.suite.ts).
 */
import type { PermissionDecision, RiskClass, ToolCallInfo, ToolRisk } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

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

const SECRET = 'hunter2-do-not-log';

export function callInfo(over: Partial<ToolCallInfo> = {}): ToolCallInfo {
  return { callId: 'call-1', toolName: 'gh_create_comment', input: { body: SECRET }, needsApproval: false, ...over };
}

/** A hook (or canUseTool) that records what it saw and answers `answer`. */
function spy(answer: PermissionDecision | Promise<PermissionDecision> = undefined) {
  const seen: ToolCallInfo[] = [];
  const inputs: unknown[] = [];
  const hook = (call: ToolCallInfo) => (seen.push(call), answer);
  const canUseTool = (_name: string, input: unknown, call: ToolCallInfo) => (inputs.push(input), seen.push(call), answer);
  return { seen, inputs, hook, canUseTool };
}

export function permissionsSuite(h: SuiteHarness): void {
  const { evaluatePermission, compilePermissionPreset, mergePermissionConfigs } = h.lib;

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

    h.it('rules match final names and risk classes, one or a list', async () => {
      const byName = await evaluatePermission({ deny: [{ tool: ['a', 'gh_create_comment'] }] }, callInfo());
      const byRisk = await evaluatePermission({ ask: [{ risk: ['read', 'write'] }] }, callInfo({ risk: 'write' }));
      const neither = await evaluatePermission({ deny: [{ tool: 'create_comment' }, { risk: 'read' }] }, callInfo({ risk: 'write' }));
      h.expect([byName.verdict, byRisk.verdict, neither.verdict]).toEqual(['deny', 'ask', 'allow']);
    });
  });

  h.describe('permission chain order', () => {
    for (const verdict of ['allow', 'deny', 'ask'] as const) {
      h.it(`a hook's ${verdict} decides before later hooks, rules and canUseTool`, async () => {
        const first = spy(verdict);
        const second = spy('deny');
        const can = spy('deny');
        const audit = await evaluatePermission(
          { hooks: [first.hook, second.hook], deny: [{ tool: 'gh_create_comment' }], ask: [{ risk: 'undeclared' }], canUseTool: can.canUseTool },
          callInfo({ needsApproval: true }),
        );
        h.expect([audit.verdict, audit.layer, audit.rule]).toEqual([verdict, 'hook', undefined]);
        h.expect([first.seen.length, second.seen.length, can.seen.length]).toEqual([1, 0, 0]);
      });
    }

    h.it('hooks run in order until one decides', async () => {
      const order: string[] = [];
      const hooks = ['a', 'b', 'c'].map((id) => () => (order.push(id), id === 'b' ? ('ask' as const) : undefined));
      const audit = await evaluatePermission({ hooks }, callInfo());
      h.expect(order).toEqual(['a', 'b']);
      h.expect(audit.reason).toContain('hook #2');
    });

    h.it('a deny rule decides before ask rules and canUseTool', async () => {
      const hook = spy();
      const can = spy('allow');
      const rule = { risk: 'write' as const };
      const audit = await evaluatePermission({ hooks: [hook.hook], deny: [rule], ask: [{ tool: 'gh_create_comment' }], canUseTool: can.canUseTool }, callInfo({ risk: 'write' }));
      h.expect([audit.verdict, audit.layer, audit.rule]).toEqual(['deny', 'deny-rule', rule]);
      h.expect([hook.seen.length, can.seen.length]).toEqual([1, 0]);
    });

    h.it('an ask rule decides before canUseTool', async () => {
      const can = spy('allow');
      const audit = await evaluatePermission({ ask: [{ tool: 'gh_create_comment' }], canUseTool: can.canUseTool }, callInfo());
      h.expect([audit.verdict, audit.layer]).toEqual(['ask', 'ask-rule']);
      h.expect(can.seen.length).toBe(0);
    });

    h.it('canUseTool decides before the terminal default, with the same return forms', async () => {
      const allow = await evaluatePermission({ canUseTool: spy('allow').canUseTool }, callInfo({ needsApproval: true }));
      const deny = await evaluatePermission({ canUseTool: spy({ verdict: 'deny', reason: 'office hours only' }).canUseTool }, callInfo());
      const none = await evaluatePermission({ canUseTool: spy(undefined).canUseTool }, callInfo({ needsApproval: true }));
      h.expect([allow.verdict, allow.layer]).toEqual(['allow', 'canUseTool']);
      h.expect([deny.verdict, deny.layer, deny.reason]).toEqual(['deny', 'canUseTool', 'office hours only']);
      h.expect([none.verdict, none.layer]).toEqual(['ask', 'default']);
    });

    h.it('the terminal default allows, or asks for a needsApproval tool', async () => {
      const plain = await evaluatePermission({}, callInfo());
      const flagged = await evaluatePermission(undefined, callInfo({ needsApproval: true }));
      h.expect([plain.verdict, plain.layer, flagged.verdict, flagged.layer]).toEqual(['allow', 'default', 'ask', 'default']);
      h.expect(plain.advisory).toEqual([]);
    });

    h.it('async hooks and canUseTool are awaited', async () => {
      const audit = await evaluatePermission(
        { hooks: [async () => undefined, async () => ({ modifiedInput: 1 })], canUseTool: async () => 'deny' },
        callInfo(),
      );
      h.expect([audit.verdict, audit.layer, audit.input]).toEqual(['deny', 'canUseTool', 1]);
    });
  });

  h.describe('permission chain input rewriting', () => {
    h.it('modifiedInput from a hook reaches later hooks and canUseTool, and is returned', async () => {
      const original = { body: 'raw' };
      const rewritten = { body: 'sanitised' };
      const later = spy();
      const can = spy();
      const audit = await evaluatePermission(
        { hooks: [() => ({ modifiedInput: rewritten }), later.hook], canUseTool: can.canUseTool },
        callInfo({ input: original }),
      );
      h.expect(later.seen[0]?.input).toBe(rewritten);
      h.expect(can.inputs[0]).toBe(rewritten);
      h.expect(can.seen[0]?.input).toBe(rewritten);
      h.expect(audit.input).toBe(rewritten);
      h.expect(original).toEqual({ body: 'raw' });
    });

    h.it('a decision may rewrite the input as it decides', async () => {
      const audit = await evaluatePermission({ hooks: [() => ({ verdict: 'allow', modifiedInput: 'safe' })] }, callInfo());
      h.expect([audit.verdict, audit.input]).toEqual(['allow', 'safe']);
    });

    h.it('the input is returned untouched when nothing rewrites it', async () => {
      const call = callInfo();
      h.expect((await evaluatePermission({ hooks: [() => undefined] }, call)).input).toBe(call.input);
    });
  });

  h.describe('permission chain failures', () => {
    const failing: ReadonlyArray<readonly [string, () => PermissionDecision | Promise<PermissionDecision>]> = [
      ['throws', () => { throw new TypeError(`boom ${SECRET}`); }],
      ['rejects', async () => { throw new RangeError(SECRET); }],
      ['returns a string that is not a verdict', () => 'yes' as unknown as PermissionDecision],
      ['returns an object that is not a decision', () => ({ ok: true }) as unknown as PermissionDecision],
      ['returns an unknown verdict', () => ({ verdict: 'maybe' }) as unknown as PermissionDecision],
    ];
    for (const [what, hook] of failing) {
      h.it(`a hook that ${what} denies, fail closed, and stops the chain`, async () => {
        const later = spy('allow');
        const can = spy('allow');
        const audit = await evaluatePermission({ hooks: [hook, later.hook], canUseTool: can.canUseTool }, callInfo());
        h.expect([audit.verdict, audit.layer]).toEqual(['deny', 'hook']);
        h.expect(audit.reason).toContain('hook #1');
        h.expect(audit.reason).not.toContain(SECRET);
        h.expect([later.seen.length, can.seen.length]).toEqual([0, 0]);
      });
    }

    h.it('a canUseTool that throws denies at its own layer', async () => {
      const audit = await evaluatePermission({ canUseTool: () => { throw new Error(SECRET); } }, callInfo({ needsApproval: true }));
      h.expect([audit.verdict, audit.layer]).toEqual(['deny', 'canUseTool']);
      h.expect(audit.reason).toContain('canUseTool');
      h.expect(audit.reason).not.toContain(SECRET);
    });

    h.it('an abort while a hook is pending denies instead of waiting forever', async () => {
      const controller = new AbortController();
      const pending = evaluatePermission({ hooks: [() => new Promise<PermissionDecision>(() => undefined)] }, callInfo({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 5);
      const audit = await pending;
      h.expect([audit.verdict, audit.layer]).toEqual(['deny', 'hook']);
      h.expect(audit.reason).toContain('aborted');
    });

    h.it('no reason ever carries an input value', async () => {
      const configs = [{}, { deny: [{ tool: 'gh_create_comment' }] }, { ask: [{ risk: 'undeclared' as const }] }, { hooks: [() => 'deny' as const] }, { canUseTool: () => 'ask' as const }];
      for (const config of configs) h.expect((await evaluatePermission(config, callInfo())).reason).not.toContain(SECRET);
    });
  });

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
      const audits = await Promise.all(['a', 'b', 'gh_create_comment'].map((toolName) => evaluatePermission([engine, profile], callInfo({ toolName }))));
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
      const engine = { preset: 'standard' as const, ask: [{ tool: 'x' }], domains: [{ tool: 'gh_create_comment', domains: ['example.com'] }] };
      const profile = { deny: [{ risk: 'network' as const }], approvalDeadlineMs: 1000 };
      for (const risk of ['read', 'network', 'execute'] as const) {
        const call = callInfo({ risk, input: { url: 'https://example.com/' } });
        h.expect(await evaluatePermission(mergePermissionConfigs(engine, profile), call)).toEqual(await evaluatePermission([engine, profile], call));
      }
    });

    h.it('the later scope sets approval timing; undefined scopes are skipped', () => {
      const merged = mergePermissionConfigs({ approvalDeadlineMs: 10, approvalTimeoutDecision: 'allow' }, undefined, { approvalDeadlineMs: 20 });
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
      ['a domain that is not a host', { domains: [{ tool: 'a', domains: ['https://x.com/'] }] }, 'config.invalid_value', 'permissions.domains[0].domains[0]'],
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
      const message = await expectConfigError(h, () => evaluatePermission([{}, { deny: [{ risk: 'x' }] }] as never, callInfo()), 'config.invalid_value');
      h.expect(message).toContain('permissions[1].deny[0].risk');
    });
  });
}
