/**
 * Approval deadlines (spec/runtime.md, "Approvals and resume"): journaled at ask time and
 * never moved by later config; closed by `timeout` (applying the journaled decision) by a
 * live run's own timer, or first thing by `pending`, `resume` and a late resolution; found by
 * `nextDeadline` for a Durable Object alarm. Deadlines beyond one timer's reach do not fire early.
 */
import type { Engine, EngineOptions, JournalEntry, JournalStore, PermissionConfig, RunOutcome, ToolDef } from '../../src/core/index.js';
import { scripted, type ScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';
import { caught, sleep } from './helpers.js';

const MODEL = 'scripted:m';
const ASK = { toolCalls: [{ name: 'pay', input: { amount: 5 } }] };

/** Agents told apart by their prompt; each script is keyed by the agent's turn number. */
function byPrompt(scripts: Record<string, readonly (ScriptedTurn | string)[]>): ScriptedModel {
  return scripted((request) => {
    const first = request.messages[0];
    const prompt = first?.role === 'user' ? first.text : '';
    const turn = scripts[prompt]?.[request.messages.filter((m) => m.role === 'assistant').length];
    if (turn === undefined) throw new Error(`nothing scripted for ${prompt}`);
    return turn;
  });
}

export function engineDeadlinesSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, RulvarError } = h.lib;
  const expect = h.expect;

  const payTool = () => {
    const inputs: unknown[] = [];
    const def: ToolDef = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: (input: unknown) => (inputs.push(input), 'paid') });
    return { def, inputs };
  };
  const engineOver = (journal: JournalStore, model: ScriptedModel, permissions: PermissionConfig = {}, extra: Partial<EngineOptions> = {}): Engine =>
    createEngine({ adapters: [model], journal, defaults: { model: MODEL, permissions }, ...extra });
  const payer = (pay: ToolDef) => defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).history.at(-2));
  const suspended = (outcome: RunOutcome) => {
    if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${outcome.status}: ${JSON.stringify(outcome)}`);
    return outcome.approvals;
  };
  const resolutions = async (journal: JournalStore, runId: string) =>
    (await journal.load(runId)).filter((e): e is Extract<JournalEntry, { type: 'resolution' }> => e.type === 'resolution').map((e) => [e.key, e.decision, e.by]);
  /** The results the model read in its last request. */
  const lastResults = (model: ScriptedModel) => {
    const last = model.requests.at(-1)?.messages.at(-1);
    return last?.role === 'tool' ? last.results.map((r) => [r.isError, r.output]) : [];
  };

  /** Agent "pay" asks while agent "wait" keeps the run live for `busyMs`; pay's last answer is `after`. */
  const payWhileBusy = (after: string, busyMs: number) => {
    const pay = payTool();
    const slow = tool({ name: 'slow', description: 'takes a while', parameters: { type: 'object' }, execute: async () => (await sleep(busyMs), 'ok') });
    const model = byPrompt({ pay: [ASK, after], wait: [{ toolCalls: [{ name: 'slow', input: {} }] }, 'waited'] });
    const wf = defineWorkflow({ name: 'two' }, async (ctx) => (await Promise.all([ctx.agent('pay', { tools: [pay.def] }), ctx.agent('wait', { tools: [slow] })])).map((r) => r.text));
    return { journal: memoryJournal(), pay, model, wf };
  };

  h.describe('engine: approval deadlines', () => {
    h.it('an ask journals deadlineAt = ask time + approvalDeadlineMs and the timeout decision (deny unless configured)', async () => {
      for (const [permissions, decision] of [[{ approvalDeadlineMs: 60_000 }, 'deny'], [{ approvalDeadlineMs: 60_000, approvalTimeoutDecision: 'allow' }, 'allow']] as const) {
        const journal = memoryJournal();
        const before = Date.now();
        const [approval] = suspended(await engineOver(journal, scripted([ASK, 'done']), permissions).run(payer(payTool().def), null).result);
        const at = Date.parse(approval?.deadlineAt ?? '');
        expect(at).toBeGreaterThanOrEqual(before + 60_000);
        expect(at).toBeLessThanOrEqual(Date.now() + 60_000);
        const asked = (await journal.load(approval!.runId)).find((e) => e.type === 'approval');
        expect(asked?.type === 'approval' && [asked.deadlineAt, asked.timeoutDecision]).toEqual([approval?.deadlineAt, decision]);
      }
    });

    h.it('a live run closes a passed deadline on its own: the agent reads the denial and the run completes', async () => {
      const { journal, pay, model, wf } = payWhileBusy('gave up', 400);
      const handle = engineOver(journal, model, { approvalDeadlineMs: 50 }).run(wf, null);
      const resolved: unknown[] = [];
      handle.on('approval:resolved', (e) => resolved.push([e.decision, e.by]));
      const outcome = await handle.result;
      expect(outcome).toEqual({ status: 'completed', value: ['gave up', 'waited'] });
      expect(resolved).toEqual([['deny', 'timeout']]);
      expect(pay.inputs).toEqual([]);
      expect((await resolutions(journal, handle.runId)).map(([, d, by]) => [d, by])).toEqual([['deny', 'timeout']]);
      const payRequests = model.requests.filter((r) => r.messages[0]?.role === 'user' && r.messages[0].text === 'pay');
      const denial = payRequests.at(-1)?.messages.at(-1);
      expect(denial?.role === 'tool' && denial.results[0]?.output).toBe('permission denied: the approval timed out');
    });

    h.it('a journaled allow-on-timeout runs the tool with the journaled input', async () => {
      const { journal, pay, model, wf } = payWhileBusy('paid', 300);
      const outcome = await engineOver(journal, model, { approvalDeadlineMs: 30, approvalTimeoutDecision: 'allow' }).run(wf, null).result;
      expect(outcome).toEqual({ status: 'completed', value: ['paid', 'waited'] });
      expect(pay.inputs).toEqual([{ amount: 5 }]);
    });

    h.it('a deadline that passed while nothing ran: pending() closes it first and lists nothing; resume replays the denial without paying twice', async () => {
      const journal = memoryJournal();
      const pay = payTool();
      const model = scripted([ASK, 'denied, fine']);
      const wf = payer(pay.def);
      const [approval] = suspended(await engineOver(journal, model, { approvalDeadlineMs: 30 }).run(wf, null).result);
      await sleep(60);
      const engine = engineOver(journal, model);
      const announced: unknown[] = [];
      engine.on('approval:resolved', (e) => announced.push([e.key, e.decision, e.by]));
      expect(await engine.pending(approval!.runId)).toEqual([]);
      expect(announced).toEqual([[approval!.key, 'deny', 'timeout']]);
      expect(await engine.pending(approval!.runId)).toEqual([]);
      expect(await resolutions(journal, approval!.runId)).toEqual([[approval!.key, 'deny', 'timeout']]);
      const outcome = await engine.resume(approval!.runId, wf).result;
      expect(outcome.status).toBe('completed');
      expect([model.calls, pay.inputs.length]).toEqual([2, 0]);
      expect(lastResults(model)).toEqual([[true, 'permission denied: the approval timed out']]);
    });

    h.it('resume closes a passed deadline first, announces it on the handle, and the parked call reads it', async () => {
      const journal = memoryJournal();
      const pay = payTool();
      const model = scripted([ASK, 'ok']);
      const wf = payer(pay.def);
      const [approval] = suspended(await engineOver(journal, model, { approvalDeadlineMs: 20, approvalTimeoutDecision: 'allow' }).run(wf, null).result);
      await sleep(50);
      const handle = engineOver(journal, model).resume(approval!.runId, wf);
      const announced: unknown[] = [];
      handle.on('approval:resolved', (e) => announced.push([e.decision, e.by]));
      expect((await handle.result).status).toBe('completed');
      expect(announced).toEqual([['allow', 'timeout']]);
      expect(pay.inputs).toEqual([{ amount: 5 }]);
      expect(model.calls).toBe(2);
    });

    h.it('a resolution after the deadline journals the timeout and returns false; the journal holds one resolution', async () => {
      const journal = memoryJournal();
      const [approval] = suspended(await engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 20 }).run(payer(payTool().def), null).result);
      await sleep(50);
      const engine = engineOver(journal, scripted([]));
      const announced: unknown[] = [];
      engine.on('approval:resolved', (e) => announced.push(e.by));
      expect(await engine.resolveExternal(approval!.runId, approval!.key, 'allow')).toBe(false);
      expect(await engine.resolveExternal(approval!.runId, approval!.key, 'allow')).toBe(false);
      expect(announced).toEqual(['timeout']);
      expect(await resolutions(journal, approval!.runId)).toEqual([[approval!.key, 'deny', 'timeout']]);
    });

    h.it('a live resolution racing the deadline timer: one of them is journaled, the other changes nothing, the agent reads the winner', async () => {
      // Offsets around the deadline, where either may come first, between two that cannot go
      // wrong under load: an allow sent from the ask's own event (before any timer can run)
      // and one sent long after the deadline (its timer expires first, so it runs first).
      const seen = new Set<string>();
      for (const offset of ['at the ask', -5, 0, 0, 5, 100] as const) {
        const { journal, pay, model, wf } = payWhileBusy('after', 200);
        const handle = engineOver(journal, model, { approvalDeadlineMs: 40 }).run(wf, null);
        const answered = new Promise<{ key: string; won: boolean }>((resolve) =>
          handle.on('approval:pending', (pending) => {
            const send = () => void handle.resolveExternal(pending.key, 'allow').then((won) => resolve({ key: pending.key, won }));
            if (offset === 'at the ask') send();
            else void sleep(Math.max(0, Date.parse(pending.deadlineAt ?? '') - Date.now() + offset)).then(send);
          }),
        );
        const { key, won } = await answered;
        expect((await handle.result).status).toBe('completed');
        const journaled = await resolutions(journal, handle.runId);
        expect(journaled).toEqual([[key, won ? 'allow' : 'deny', won ? 'external' : 'timeout']]);
        expect(pay.inputs).toEqual(won ? [{ amount: 5 }] : []);
        const read = model.requests.filter((r) => r.messages[0]?.role === 'user' && r.messages[0].text === 'pay').at(-1)?.messages.at(-1);
        expect(read?.role === 'tool' && read.results[0]?.output).toBe(won ? 'paid' : 'permission denied: the approval timed out');
        seen.add(String(won));
      }
      expect(seen).toEqual(new Set(['true', 'false']));
    });

    /** Agent "pay" asks while agent "wait" holds a tool until the test releases it. */
    const payWhileHeld = () => {
      const pay = payTool();
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const hold = tool({ name: 'hold', description: 'holds', parameters: { type: 'object' }, execute: async () => (await released, 'ok') });
      const model = byPrompt({ pay: [ASK, 'after'], wait: [{ toolCalls: [{ name: 'hold', input: {} }] }, 'waited'] });
      const wf = defineWorkflow({ name: 'two' }, async (ctx) => (await Promise.all([ctx.agent('pay', { tools: [pay.def] }), ctx.agent('wait', { tools: [hold] })])).map((r) => r.text));
      return { journal: memoryJournal(), pay, model, wf, release };
    };

    h.it("a parked approval's live timer closes it at deadlineAt: never before, and no later than a plain timer set at the ask for the same moment", async () => {
      const DEADLINE_MS = 300;
      const { journal, model, wf, release } = payWhileHeld();
      const handle = engineOver(journal, model, { approvalDeadlineMs: DEADLINE_MS }).run(wf, null);
      let deadlineAt = 0;
      let reference = Promise.resolve(0);
      handle.on('approval:pending', (pending) => {
        deadlineAt = Date.parse(pending.deadlineAt ?? '');
        // The same wait on a plain timer: whatever this machine's load does to timers, it does to both.
        reference = new Promise((resolve) => setTimeout(() => resolve(Date.now()), deadlineAt - Date.now()));
      });
      const closedAt = await new Promise<number>((resolve) =>
        handle.on('approval:resolved', (resolved) => {
          if (resolved.by === 'timeout') resolve(Date.now());
          release();
        }),
      );
      expect(await handle.result).toEqual({ status: 'completed', value: ['after', 'waited'] });
      expect(closedAt).toBeGreaterThanOrEqual(deadlineAt);
      expect(Math.abs(closedAt - (await reference))).toBeLessThan(DEADLINE_MS / 2);
    });

    h.it('a live resolution made after deadlineAt but before the timer could run is refused: the timeout is journaled and the tool never runs', async () => {
      const { journal, pay, model, wf, release } = payWhileHeld();
      const handle = engineOver(journal, model, { approvalDeadlineMs: 30 }).run(wf, null);
      const answer = new Promise<boolean>((resolve) =>
        handle.on('approval:pending', (pending) => {
          // The clock read past the deadline, in the ask's own task: no timer has run (none is
          // even set yet), so only the engine's own check of the time can refuse it. A fake
          // clock rather than a busy wait, which workerd's clock (frozen while code runs) defeats.
          const deadlineAt = Date.parse(pending.deadlineAt ?? '');
          const now = Date.now;
          Date.now = () => deadlineAt + 1;
          try {
            void handle.resolveExternal(pending.key, 'allow').then(resolve);
          } finally {
            Date.now = now;
          }
        }),
      );
      expect(await answer).toBe(false);
      release();
      expect(await handle.result).toEqual({ status: 'completed', value: ['after', 'waited'] });
      expect((await resolutions(journal, handle.runId)).map(([, d, by]) => [d, by])).toEqual([['deny', 'timeout']]);
      expect(pay.inputs).toEqual([]);
    });

    h.it('first closing wins on load too: a journal holding two resolutions of one key applies the first, in either order', async () => {
      for (const [first, second] of [['deny', 'allow'], ['allow', 'deny']] as const) {
        const journal = memoryJournal();
        const pay = payTool();
        const model = scripted([ASK, 'after']);
        const wf = payer(pay.def);
        const [approval] = suspended(await engineOver(journal, model).run(wf, null).result);
        const { runId, key } = approval!;
        // Two engines racing, as a journal may hold them: both appended, the first one journaled counts.
        const at = new Date().toISOString();
        const length = (await journal.load(runId)).length;
        await journal.append(runId, [{ v: 1, type: 'resolution', key, decision: first, by: 'external', at }, { v: 1, type: 'resolution', key, decision: second, by: 'operator', at }], length);
        const engine = engineOver(journal, model);
        expect(await engine.pending(runId)).toEqual([]);
        expect(await engine.resolveExternal(runId, key, second)).toBe(false);
        expect((await engine.resume(runId, wf).result).status).toBe('completed');
        expect(pay.inputs).toEqual(first === 'allow' ? [{ amount: 5 }] : []);
        expect(lastResults(model)).toEqual([first === 'allow' ? [false, 'paid'] : [true, 'permission denied: the approval was denied']]);
      }
    });

    h.it('config changed between runs moves no journaled deadline or decision', async () => {
      const journal = memoryJournal();
      const pay = payTool();
      const wf = payer(pay.def);
      const [approval] = suspended(await engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 60_000 }).run(wf, null).result);
      const changed = engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 1, approvalTimeoutDecision: 'allow' });
      await sleep(20);
      expect(await changed.pending(approval!.runId)).toEqual([approval]);
      expect(await changed.nextDeadline(approval!.runId)).toBe(Date.parse(approval!.deadlineAt!));
      expect(suspended(await changed.resume(approval!.runId, wf).result)).toEqual([approval]);
      expect(pay.inputs).toEqual([]);
    });

    h.it('nextDeadline: the earliest open one, undefined without deadlines or once resolved; an unknown run rejects', async () => {
      const journal = memoryJournal();
      const engine = engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 60_000 });
      const [approval] = suspended(await engine.run(payer(payTool().def), null).result);
      expect(await engine.nextDeadline(approval!.runId)).toBe(Date.parse(approval!.deadlineAt!));
      await engine.resolveExternal(approval!.runId, approval!.key, 'deny');
      expect(await engine.nextDeadline(approval!.runId)).toBeUndefined();
      const plain = engineOver(memoryJournal(), scripted([ASK, 'x']));
      const [open] = suspended(await plain.run(payer(payTool().def), null).result);
      expect(await plain.nextDeadline(open!.runId)).toBeUndefined();
      const error = await caught(() => plain.nextDeadline('no-such-run'));
      expect(RulvarError.is(error) && error.code).toBe('journal.unknown_run');
    });

    h.it('nextDeadline of two open approvals is the earlier one, whichever was asked first', async () => {
      const pay = payTool();
      // The 'soon' agent's first turn waits for the 'late' ask, so the later deadline is
      // always the one asked first, whatever the scheduler does under load.
      let lateAsked = (): void => undefined;
      const gate = new Promise<void>((resolve) => (lateAsked = resolve));
      const model = scripted(async (request) => {
        const first = request.messages[0];
        if (request.messages.length > 1) return 'x';
        if (first?.role === 'user' && first.text === 'soon') await gate;
        return ASK;
      });
      const wf = defineWorkflow({ name: 'two-asks' }, async (ctx) =>
        Promise.all([
          ctx.agent('late', { tools: [pay.def], permissions: { approvalDeadlineMs: 600_000 } }),
          ctx.agent('soon', { tools: [pay.def], permissions: { approvalDeadlineMs: 60_000 } }),
        ]),
      );
      const engine = engineOver(memoryJournal(), model);
      const handle = engine.run(wf, null);
      handle.on('approval:pending', () => lateAsked());
      const approvals = suspended(await handle.result);
      expect(approvals).toHaveLength(2);
      const earliest = Math.min(...approvals.map((a) => Date.parse(a.deadlineAt!)));
      expect(Date.parse(approvals[0]!.deadlineAt!)).toBeGreaterThan(earliest);
      expect(await engine.nextDeadline(approvals[0]!.runId)).toBe(earliest);
    });

    h.it('resume closes the passed deadline of an approval no agent replays (its tool changed, so the agent re-keyed)', async () => {
      const journal = memoryJournal();
      const payWith = (description: string) => tool({ name: 'pay', description, parameters: { type: 'object' }, needsApproval: true, execute: () => 'paid' });
      const wf = (pay: ToolDef) => defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).text);
      const [old] = suspended(await engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 20 }).run(wf(payWith('pays')), null).result);
      await sleep(50);
      const [fresh] = suspended(await engineOver(journal, scripted([ASK, 'x'])).resume(old!.runId, wf(payWith('pays, now in euros'))).result);
      expect(fresh?.key).not.toBe(old?.key);
      expect(await resolutions(journal, old!.runId)).toEqual([[old!.key, 'deny', 'timeout']]);
    });

    h.it('an approval its agent left behind (re-keyed, no deadline) closes when the run ends: not pending, not resolvable, no deadline', async () => {
      const journal = memoryJournal();
      const payWith = (description: string) => tool({ name: 'pay', description, parameters: { type: 'object' }, needsApproval: true, execute: () => 'paid' });
      const wf = (pay: ToolDef) => defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).text);
      const [old] = suspended(await engineOver(journal, scripted([ASK, 'x']), { approvalDeadlineMs: 600_000 }).run(wf(payWith('pays')), null).result);
      const engine = engineOver(journal, scripted([ASK, 'paid in euros']));
      const euros = wf(payWith('pays, now in euros'));
      const [fresh] = suspended(await engine.resume(old!.runId, euros).result);
      // Still suspended: the old ask stays listed beside the new one until the run ends.
      expect((await engine.pending(old!.runId)).map((a) => a.key)).toEqual([old!.key, fresh!.key]);
      expect(await engine.resolveExternal(old!.runId, fresh!.key, 'allow')).toBe(true);
      expect(await engine.resume(old!.runId, euros).result).toEqual({ status: 'completed', value: 'paid in euros' });
      expect(await engine.pending(old!.runId)).toEqual([]);
      expect(await engine.nextDeadline(old!.runId)).toBeUndefined();
      expect(await engine.resolveExternal(old!.runId, old!.key, 'allow')).toBe(false);
      expect(await resolutions(journal, old!.runId)).toEqual([[fresh!.key, 'allow', 'external']]);
    });

    h.it('a deadline beyond one timer\'s reach (30 days) does not fire early, and no timer is asked for more than one can wait', async () => {
      const journal = memoryJournal();
      const delays: number[] = [];
      const original = globalThis.setTimeout;
      globalThis.setTimeout = ((fn: () => void, ms?: number) => (delays.push(ms ?? 0), original(fn, ms))) as typeof setTimeout;
      const slow = tool({ name: 'slow', description: 'takes a while', parameters: { type: 'object' }, execute: async () => (await sleep(100), 'ok') });
      const model = byPrompt({ pay: [ASK, 'x'], wait: [{ toolCalls: [{ name: 'slow', input: {} }] }, 'waited'] });
      const wf = defineWorkflow({ name: 'two' }, async (ctx) => Promise.all([ctx.agent('pay', { tools: [payTool().def] }), ctx.agent('wait', { tools: [slow] })]));
      try {
        const handle = engineOver(journal, model, { approvalDeadlineMs: 30 * 24 * 60 * 60 * 1000 }).run(wf, null);
        expect(suspended(await handle.result)).toHaveLength(1);
        expect(await resolutions(journal, handle.runId)).toEqual([]);
      } finally {
        globalThis.setTimeout = original;
      }
      expect(Math.max(...delays)).toBe(2 ** 31 - 1);
    });

    h.it('an approvalDeadlineMs no Date can hold is refused typed before any model call', async () => {
      const model = scripted([ASK, 'x']);
      const outcome = await engineOver(memoryJournal(), model, { approvalDeadlineMs: 1e300 }).run(payer(payTool().def), null).result;
      expect(outcome.status === 'failed' && outcome.error.code).toBe('config.invalid_value');
      expect(model.calls).toBe(0);
    });
  });
}
