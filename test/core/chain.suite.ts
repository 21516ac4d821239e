/**
 * The permission chain's fixed order in every runtime: each layer decides before the next
 * and later layers are not even consulted (spies count the calls), a hook's modifiedInput
 * reaches every later layer, and callbacks that fail or hang end in deny, never a throw.
 */
import type { PermissionDecision } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { callInfo, SECRET, spy } from './permission-helpers.js';

export function chainSuite(h: SuiteHarness): void {
  const { evaluatePermission } = h.lib;

  h.describe('permission chain order', () => {
    for (const verdict of ['allow', 'deny', 'ask'] as const) {
      h.it(`a hook's ${verdict} decides before later hooks, rules and canUseTool`, async () => {
        const first = spy(verdict);
        const second = spy('deny');
        const can = spy('deny');
        const audit = await evaluatePermission(
          {
            hooks: [first.hook, second.hook],
            deny: [{ tool: 'gh_create_comment' }],
            ask: [{ risk: 'undeclared' }],
            canUseTool: can.canUseTool,
          },
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
      const config = { hooks: [hook.hook], deny: [rule], ask: [{ tool: 'gh_create_comment' }], canUseTool: can.canUseTool };
      const audit = await evaluatePermission(config, callInfo({ risk: 'write' }));
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
        { hooks: [async () => undefined, async () => ({ modifiedInput: 1 })], canUseTool: async () => 'deny' as const },
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

    h.it('a hook answering null continues like undefined', async () => {
      const later = spy('deny');
      const audit = await evaluatePermission({ hooks: [() => null as unknown as PermissionDecision, later.hook] }, callInfo());
      h.expect([audit.verdict, audit.layer, later.seen.length]).toEqual(['deny', 'hook', 1]);
    });

    h.it('a hook returning a non-object says so rather than blaming a crash it never had', async () => {
      for (const answer of ['yes', 7]) {
        const audit = await evaluatePermission({ hooks: [() => answer as unknown as PermissionDecision] }, callInfo());
        h.expect(audit.reason).toContain('not a permission decision');
      }
    });

    h.it("names the error's class, cut short", async () => {
      const error = new Error(SECRET);
      error.name = 'E'.repeat(100);
      const audit = await evaluatePermission({ hooks: [() => { throw error; }] }, callInfo());
      h.expect(audit.reason).toContain(`(${'E'.repeat(40)})`);
    });

    h.it('an abort while a hook is pending denies instead of waiting forever', async () => {
      const controller = new AbortController();
      const never = () => new Promise<PermissionDecision>(() => undefined);
      const pending = evaluatePermission({ hooks: [never] }, callInfo({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 5);
      const audit = await pending;
      h.expect([audit.verdict, audit.layer]).toEqual(['deny', 'hook']);
      h.expect(audit.reason).toContain('aborted');
    });

    h.it('an abort while canUseTool is pending denies at its layer', async () => {
      const controller = new AbortController();
      const never = () => new Promise<PermissionDecision>(() => undefined);
      const pending = evaluatePermission({ canUseTool: never }, callInfo({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 5);
      const audit = await pending;
      h.expect([audit.verdict, audit.layer]).toEqual(['deny', 'canUseTool']);
      h.expect(audit.reason).toContain('aborted');
    });

    h.it('a signal aborted before the chain starts denies without calling back', async () => {
      const hook = spy('allow');
      const can = spy('allow');
      const signal = AbortSignal.abort();
      const atHook = await evaluatePermission({ hooks: [hook.hook] }, callInfo({ signal }));
      const atCan = await evaluatePermission({ canUseTool: can.canUseTool }, callInfo({ signal }));
      h.expect([atHook.verdict, atHook.layer, atCan.verdict, atCan.layer]).toEqual(['deny', 'hook', 'deny', 'canUseTool']);
      h.expect(`${atHook.reason} / ${atCan.reason}`).toMatch(/aborted.*aborted/);
      h.expect([hook.seen.length, can.seen.length]).toEqual([0, 0]);
    });

    h.it('a live signal does not hold up a callback that settles', async () => {
      // The abort comes late, as a backstop: if settling were missed, the chain would wait for it.
      const controller = new AbortController();
      const backstop = setTimeout(() => controller.abort(), 200);
      const signal = controller.signal;
      const allowed = await evaluatePermission({ hooks: [async () => 'allow' as const] }, callInfo({ signal }));
      const failed = await evaluatePermission({ canUseTool: async () => { throw new RangeError(SECRET); } }, callInfo({ signal }));
      clearTimeout(backstop);
      h.expect([allowed.verdict, allowed.layer]).toEqual(['allow', 'hook']);
      h.expect([failed.verdict, failed.layer]).toEqual(['deny', 'canUseTool']);
      h.expect(failed.reason).toContain('(RangeError)');
    });

    h.it('no reason ever carries an input value', async () => {
      const configs = [
        {},
        { deny: [{ tool: 'gh_create_comment' }] },
        { ask: [{ risk: 'undeclared' as const }] },
        { hooks: [() => 'deny' as const] },
        { canUseTool: () => 'ask' as const },
      ];
      for (const config of configs) h.expect((await evaluatePermission(config, callInfo())).reason).not.toContain(SECRET);
    });
  });
}
