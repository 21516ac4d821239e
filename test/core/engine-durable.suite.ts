/**
 * The engine's durability promises (spec/runtime.md, "Approvals and resume", "Journals"): a
 * suspended run continues in another engine over the same journal without paying for any
 * model turn or tool call twice; the first resolution journaled wins; a run suspends only
 * when nothing of its own is in flight; a changed contract re-keys instead of replaying; the
 * journal is written before the work it records counts; replayed work is not re-announced.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Engine, JournalEntry, JournalStore, McpToolSource, Message, PendingApproval, RunHandle, RunOutcome, ToolDef, ToolResult, ToolSource } from '../../src/core/index.js';
import { scripted, type ScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';
import { caught, sleep } from './helpers.js';
import { inProcessWire } from './wire.js';

type Turn = ScriptedTurn | string;
type Entry<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

const MODEL = 'scripted:m';
const call = (name: string, input: unknown = {}): Turn => ({ toolCalls: [{ name, input }] });
const PAY = [call('pay', { amount: 5 }), 'paid'];

function expectSuspended(h: SuiteHarness, outcome: RunOutcome): PendingApproval[] {
  h.expect(outcome.status).toBe('suspended');
  if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${JSON.stringify(outcome)}`);
  return outcome.approvals;
}

function expectCompleted(h: SuiteHarness, outcome: RunOutcome): unknown {
  h.expect(outcome.status).toBe('completed');
  if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}: ${String((outcome as { error?: unknown }).error)}`);
  return outcome.value;
}

const entriesOf = <T extends JournalEntry['type']>(entries: readonly JournalEntry[], type: T): Entry<T>[] =>
  entries.filter((e): e is Entry<T> => e.type === type);

/** "prompt n" for every request a model received: the turn it asked for, by agent. */
const turnsAsked = (model: ScriptedModel): string[] =>
  model.requests.map((r) => `${r.messages[0]?.role === 'user' ? r.messages[0].text : '?'} ${r.messages.filter((m) => m.role === 'assistant').length}`);

/** The results the model saw in the last tool message of its latest request. */
function lastResults(model: ScriptedModel): ToolResult[] {
  const last = model.requests.at(-1)?.messages.at(-1);
  return last?.role === 'tool' ? last.results : [];
}

/** A scripted model whose agents are told apart by their prompt; `log` gets "prompt n" per call. */
function byPrompt(scripts: Record<string, readonly Turn[]>, log: string[] = [], before?: (prompt: string, n: number) => Promise<void>): ScriptedModel {
  return scripted(async (request) => {
    const first = request.messages[0];
    const prompt = first?.role === 'user' ? first.text : '';
    const n = request.messages.filter((m) => m.role === 'assistant').length;
    log.push(`${prompt} ${n}`);
    await before?.(prompt, n);
    const turn = scripts[prompt]?.[n];
    if (turn === undefined) throw new Error(`no turn ${n} scripted for ${prompt}`);
    return turn;
  });
}

export function engineDurableSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, resolveToolset, mcp, RulvarError } = h.lib;
  const expect = h.expect;

  /** A native tool that counts its executions and keeps their inputs. */
  function counted(name: string, opts: { needsApproval?: boolean; delayMs?: number; onRun?: () => unknown } = {}) {
    const inputs: unknown[] = [];
    const def = tool({
      name,
      description: `the ${name} tool`,
      parameters: { type: 'object' },
      needsApproval: opts.needsApproval ?? false,
      execute: async (input: unknown) => {
        if (opts.delayMs !== undefined) await sleep(opts.delayMs);
        inputs.push(input);
        await opts.onRun?.();
        return { ran: name };
      },
    });
    return { def, inputs, get runs() { return inputs.length; } };
  }

  const engineOver = (journal: JournalStore, model: ScriptedModel, permissions = {}) =>
    createEngine({ adapters: [model], journal, defaults: { model: MODEL, permissions } });

  const payer = (pay: ToolDef, name = 'payer', bodies = { n: 0 }) =>
    defineWorkflow({ name }, async (ctx, args: unknown) => {
      bodies.n += 1;
      return { text: (await ctx.agent('pay the invoice', { tools: [pay] })).text, args };
    });

  /**
   * Agent A asks to pay while agent B's one tool call runs `during(key)`: the run stays live,
   * B being busy, for as long as `during` takes.
   */
  function whileLive(journal: JournalStore, during: (key: string, handle: RunHandle, engine: Engine) => Promise<unknown>) {
    const pay = counted('pay', { needsApproval: true });
    let pending!: (key: string) => void;
    const asked = new Promise<string>((resolve) => (pending = resolve));
    const busy = counted('busy', { onRun: async () => during(await asked, handle, engine) });
    const model = byPrompt({ A: PAY, B: [call('busy'), 'B done'] });
    const engine = engineOver(journal, model);
    const wf = defineWorkflow({ name: 'live' }, async (ctx) => {
      const done = await Promise.all([ctx.agent('A', { tools: [pay.def] }), ctx.agent('B', { tools: [busy.def] })]);
      return done.map((d) => d.text);
    });
    const handle = engine.run(wf, null);
    handle.on('approval:pending', (p) => pending(p.key));
    return { handle, model, wf, pay, busy };
  }

  h.describe('engine durability: never pay twice', () => {
    for (const fresh of [false, true]) {
      h.it(`allow resolved offline, resumed in a fresh engine (${fresh ? 'a new scripted' : 'the same scripted'}): the journaled input runs once`, async () => {
        const journal = memoryJournal();
        const pay = counted('pay', { needsApproval: true });
        const bodies = { n: 0 };
        const wf = payer(pay.def, 'payer', bodies);
        const first = scripted(PAY);
        // Only the first engine rewrites the input: the resumed call must use the journaled
        // post-hook input, not a fresh trip through (a now different) chain.
        const hooks = [(c: { input: unknown }) => ({ modifiedInput: { ...(c.input as object), memo: 'rewritten' } })];
        const handle = engineOver(journal, first, { hooks }).run(wf, null);
        const [approval, ...rest] = expectSuspended(h, await handle.result);
        expect(rest).toEqual([]);
        expect(approval).toMatchObject({ runId: handle.runId, toolName: 'pay', input: { amount: 5, memo: 'rewritten' }, audit: { verdict: 'ask' } });
        expect(typeof approval?.key).toBe('string');
        expect([first.calls, pay.runs]).toEqual([1, 0]);

        const second = fresh ? scripted(PAY) : first;
        const engine = engineOver(journal, second);
        expect(await engine.resolveExternal(handle.runId, approval!.key, 'allow')).toBe(true);
        expect(pay.runs).toBe(0);
        expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual({ text: 'paid', args: null });
        expect(pay.inputs).toEqual([{ amount: 5, memo: 'rewritten' }]);
        const asked = fresh ? [...turnsAsked(first), ...turnsAsked(second)] : turnsAsked(first);
        expect(asked).toEqual(['pay the invoice 0', 'pay the invoice 1']);

        // A completed run answers from its journal: the body does not run again, nothing is written.
        const third = scripted(PAY);
        const written = await journal.load(handle.runId);
        expect(expectCompleted(h, await engineOver(journal, third).resume(handle.runId, wf).result)).toEqual({ text: 'paid', args: null });
        expect([third.calls, first.calls + (fresh ? second.calls : 0), pay.runs, bodies.n]).toEqual([0, 2, 1, 2]);
        expect(await journal.load(handle.runId)).toEqual(written);
      });
    }

    h.it("the approved call's tool:end carries its resolution; a call that never asked carries none", async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      const wf = payer(pay.def, 'payer', { n: 0 });
      const handle = engineOver(journal, scripted(PAY)).run(wf, null);
      const pending: object[] = [];
      handle.on('approval:pending', (event) => void pending.push(event));
      const [approval] = expectSuspended(h, await handle.result);
      // No deadline configured: the event has no deadlineAt at all, not an undefined one.
      expect(pending.map((event) => Object.keys(event).sort())).toEqual([['audit', 'input', 'key', 'runId', 'toolName']]);
      const engine = engineOver(journal, scripted(PAY));
      expect(await engine.resolveExternal(handle.runId, approval!.key, { decision: 'allow', reason: 'fine' })).toBe(true);
      const resumed = engine.resume(handle.runId, wf);
      const ends: Record<string, unknown>[] = [];
      resumed.on('tool:end', (event) => void ends.push(event as unknown as Record<string, unknown>));
      expectCompleted(h, await resumed.result);
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatchObject({ toolName: 'pay', result: { isError: false }, resolution: { decision: 'allow', reason: 'fine', by: 'external' } });
    });

    h.it('a hook that rewrites an asked call\'s input into something JSON cannot hold gets that call an error result, not the run a failure', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      const wf = payer(pay.def, 'payer', { n: 0 });
      const cyclic: Record<string, unknown> = { amount: 5 };
      cyclic['self'] = cyclic;
      const hooks = [() => ({ modifiedInput: cyclic })];
      const model = scripted(PAY);
      const handle = engineOver(journal, model, { hooks }).run(wf, null);
      const ends: Record<string, unknown>[] = [];
      handle.on('tool:end', (event) => void ends.push(event as unknown as Record<string, unknown>));
      expectCompleted(h, await handle.result);
      expect(pay.runs).toBe(0);
      expect(ends[0]?.['result']).toMatchObject({ toolName: 'pay', isError: true, output: 'the input of pay, as a permission hook rewrote it, is not JSON', reason: 'invalid_input' });
      expect(ends[0]?.['audit']).toMatchObject({ verdict: 'ask' });
      const types = (await journal.load(handle.runId)).map((e) => e.type).filter((t) => t !== 'lease');
      expect(types).not.toContain('approval');
      expect(model.calls).toBe(2);
    });

    for (const [label, decision, opts] of [
      ['a reason in the decision', { decision: 'deny', reason: 'over budget' }, undefined],
      ['a reason in the options', 'deny', { reason: 'over budget' }],
    ] as const) {
      h.it(`deny with ${label}: the tool never runs and the model reads 'denied' and the reason`, async () => {
        const journal = memoryJournal();
        const pay = counted('pay', { needsApproval: true });
        const model = scripted(PAY);
        const handle = engineOver(journal, model).run(payer(pay.def), null);
        const [approval] = expectSuspended(h, await handle.result);
        expect(await engineOver(journal, model).resolveExternal(handle.runId, approval!.key, decision, opts)).toBe(true);
        expectCompleted(h, await engineOver(journal, model).resume(handle.runId, payer(pay.def)).result);
        expect([pay.runs, model.calls]).toEqual([0, 2]);
        const [result] = lastResults(model);
        expect(result).toMatchObject({ toolName: 'pay', isError: true, reason: 'denied' });
        expect(String(result?.output)).toContain('over budget');
      });
    }

    for (const through of ['another engine', 'the settled handle'] as const) {
      h.it(`an operator's allow through ${through} is journaled and announced by that engine with by 'operator'`, async () => {
        const journal = memoryJournal();
        const pay = counted('pay', { needsApproval: true });
        const model = scripted(PAY);
        const first = engineOver(journal, model);
        const handle = first.run(payer(pay.def), null);
        const [approval] = expectSuspended(h, await handle.result);
        const engine = through === 'another engine' ? engineOver(journal, model) : first;
        const announced: unknown[] = [];
        engine.on('approval:resolved', (event) => announced.push(event));
        const resolving = through === 'another engine' ? engine.resolveExternal(handle.runId, approval!.key, 'allow', { by: 'operator' }) : handle.resolveExternal(approval!.key, 'allow', { by: 'operator' });
        expect(await resolving).toBe(true);
        expect(announced).toEqual([{ runId: handle.runId, key: approval!.key, decision: 'allow', by: 'operator' }]);
        expect(entriesOf(await journal.load(handle.runId), 'resolution')).toMatchObject([{ key: approval!.key, decision: 'allow', by: 'operator' }]);
        expectCompleted(h, await engine.resume(handle.runId, payer(pay.def)).result);
        expect([pay.runs, model.calls]).toEqual([1, 2]);
      });
    }

    for (const via of ['handle', 'engine'] as const) {
      h.it(`a resolution through the ${via} while the run is live continues the agent in place, no resume`, async () => {
        const pay = counted('pay', { needsApproval: true });
        const model = scripted(PAY);
        const engine = engineOver(memoryJournal(), model);
        const handle = engine.run(payer(pay.def), null);
        const returned: boolean[] = [];
        const announced: unknown[] = [];
        handle.on('approval:resolved', (event) => announced.push(event));
        handle.on('approval:pending', (p) => {
          const resolving = via === 'handle' ? handle.resolveExternal(p.key, 'allow') : engine.resolveExternal(handle.runId, p.key, 'allow');
          void resolving.then((r) => returned.push(r));
        });
        expect(expectCompleted(h, await handle.result)).toEqual({ text: 'paid', args: null });
        expect([returned, pay.runs, model.calls]).toEqual([[true], 1, 2]);
        expect(announced).toMatchObject([{ decision: 'allow', by: 'external' }]);
      });
    }
  });

  h.describe('engine durability: first closing wins', () => {
    const DECISIONS = ['allow', 'deny', { decision: 'allow' }, { decision: 'deny', reason: 'no' }] as const;

    h.it('20 concurrent resolutions from two engines of a settled run: one true, one journal entry, nothing pending', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      const model = scripted(PAY);
      const handle = engineOver(journal, model).run(payer(pay.def), null);
      const [approval] = expectSuspended(h, await handle.result);
      const key = approval!.key;
      const engines = [engineOver(journal, model), engineOver(journal, model)];
      const announced: unknown[] = [];
      for (const e of engines) e.on('approval:resolved', (event) => announced.push(event));
      const returned = await Promise.all(
        Array.from({ length: 20 }, (_, i) => engines[i % 2]!.resolveExternal(handle.runId, key, DECISIONS[i % 4]!, { by: i % 3 === 0 ? 'operator' : 'external' })),
      );
      expect(returned.filter((r) => r)).toEqual([true]);
      const winner = returned.indexOf(true);
      const decision = winner % 2 === 0 ? 'allow' : 'deny';
      const resolutions = entriesOf(await journal.load(handle.runId), 'resolution');
      expect(resolutions).toMatchObject([{ key, decision, by: winner % 3 === 0 ? 'operator' : 'external' }]);
      expect(announced).toMatchObject([{ key, decision }]);
      for (const e of engines) expect(await e.pending(handle.runId)).toEqual([]);
      expectCompleted(h, await engines[1]!.resume(handle.runId, payer(pay.def)).result);
      expect(pay.runs).toBe(decision === 'allow' ? 1 : 0);
    });

    h.it('20 concurrent resolutions while the run is live (handle and engine): one true, one entry', async () => {
      const journal = memoryJournal();
      let returned: boolean[] = [];
      const { handle, pay } = whileLive(journal, async (key, live, engine) => {
        returned = await Promise.all(
          Array.from({ length: 20 }, (_, i) => {
            const opts = { by: i % 3 === 0 ? ('operator' as const) : ('external' as const) };
            return i % 2 === 0 ? live.resolveExternal(key, DECISIONS[i % 4]!, opts) : engine.resolveExternal(live.runId, key, DECISIONS[i % 4]!, opts);
          }),
        );
      });
      const announced: unknown[] = [];
      handle.on('approval:resolved', (e) => announced.push(e));
      expect(expectCompleted(h, await handle.result)).toEqual(['paid', 'B done']);
      expect(returned.filter((r) => r)).toEqual([true]);
      const decision = returned.indexOf(true) % 2 === 0 ? 'allow' : 'deny';
      expect(entriesOf(await journal.load(handle.runId), 'resolution')).toMatchObject([{ decision }]);
      expect(announced).toMatchObject([{ decision }]);
      expect(await engineOver(journal, scripted([])).pending(handle.runId)).toEqual([]);
      expect(pay.runs).toBe(decision === 'allow' ? 1 : 0);
    });

    h.it('a resolution another engine journals while the run is live: later ones return false, the run does not fail', async () => {
      const journal = memoryJournal();
      const returned: unknown[] = [];
      const { handle, model, wf, pay, busy } = whileLive(journal, async (key, live) => {
        returned.push(await engineOver(journal, scripted([])).resolveExternal(live.runId, key, 'deny'));
        returned.push(await live.resolveExternal(key, 'allow').catch((e: { code?: string }) => e.code));
      });
      const outcome = await handle.result;
      expect(returned).toEqual([true, false]);
      // Spec: a live handle need not notice another engine's resolution; it settles
      // suspended as usual (or continues), never failed, and B's journaled work stands.
      expect(['suspended', 'completed']).toContain(outcome.status);
      expect(expectCompleted(h, await engineOver(journal, model).resume(handle.runId, wf).result)).toEqual(['paid', 'B done']);
      expect([pay.runs, busy.runs]).toEqual([0, 1]);
      expect(entriesOf(await journal.load(handle.runId), 'resolution')).toMatchObject([{ decision: 'deny' }]);
    });

    h.it('a resolution another engine journals between two writes of a live run is taken in at the next write; the run goes on', async () => {
      const journal = memoryJournal();
      const { handle, pay, busy } = whileLive(journal, (key, live) => engineOver(journal, scripted([])).resolveExternal(live.runId, key, 'deny'));
      // The busy tool's result is the live run's next write: it meets the foreign resolution,
      // takes it in, and the parked agent reads the denial instead of the run failing.
      const outcome = await handle.result;
      expect(expectCompleted(h, outcome)).toEqual([PAY[1], 'B done']);
      expect([pay.runs, busy.runs]).toEqual([0, 1]);
      expect(entriesOf(await journal.load(handle.runId), 'resolution')).toMatchObject([{ decision: 'deny' }]);
    });

    h.it('an unknown key is false and writes nothing; an unknown run rejects with journal.unknown_run', async () => {
      const journal = memoryJournal();
      const model = scripted(PAY);
      const engine = engineOver(journal, model);
      const handle = engine.run(payer(counted('pay', { needsApproval: true }).def), null);
      expectSuspended(h, await handle.result);
      const before = (await journal.load(handle.runId)).length;
      expect(await engine.resolveExternal(handle.runId, 'no-such-key', 'allow')).toBe(false);
      expect(await handle.resolveExternal('no-such-key', 'allow')).toBe(false);
      expect((await journal.load(handle.runId)).length).toBe(before);
      const error = await caught(() => engine.resolveExternal('no-such-run', 'k', 'allow'));
      expect(RulvarError.is(error)).toBe(true);
      expect((error as { code: string }).code).toBe('journal.unknown_run');
    });

    h.it('anything but an explicit allow is a deny, never a throw', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      const model = scripted(PAY);
      const engine = engineOver(journal, model);
      const cases: ReadonlyArray<readonly [unknown, 'allow' | 'deny']> = [
        ['deny', 'deny'], [{ decision: 'deny' }, 'deny'], ['ALLOW', 'deny'], [{}, 'deny'], [null, 'deny'], [42, 'deny'],
        [undefined, 'deny'], [{ decision: 'Allow' }, 'deny'], [['allow'], 'deny'], [{ decision: 'allow' }, 'allow'], ['allow', 'allow'],
      ];
      await Promise.all(
        cases.map(async ([decision, expected], i) => {
          const handle = engine.run(payer(pay.def), null, { runId: `decision-${i}` });
          const [approval] = expectSuspended(h, await handle.result);
          expect(await engine.resolveExternal(handle.runId, approval!.key, decision as never)).toBe(true);
          expect(entriesOf(await journal.load(handle.runId), 'resolution').map((r) => r.decision)).toEqual([expected]);
          expectCompleted(h, await engine.resume(handle.runId, payer(pay.def)).result);
        }),
      );
      expect(pay.runs).toBe(2);
    });
  });

  h.describe('engine durability: parallel branches', () => {
    const parallel = (pay: ToolDef, slow: ToolDef) =>
      defineWorkflow({ name: 'parallel' }, async (ctx) => {
        const done = await Promise.all([ctx.agent('A', { tools: [pay] }), ctx.agent('B', { tools: [slow] })]);
        return done.map((d) => d.text);
      });
    const SCRIPTS = { A: PAY, B: [call('slow'), call('slow'), 'B done'] };

    h.it('suspends only after the busy branch finished; on resume that branch costs nothing', async () => {
      const journal = memoryJournal();
      const log: string[] = [];
      const pay = counted('pay', { needsApproval: true });
      const slow = counted('slow', { delayMs: 30, onRun: () => log.push('slow ran') });
      const wf = parallel(pay.def, slow.def);
      const handle = engineOver(journal, byPrompt(SCRIPTS, log)).run(wf, null);
      handle.on('approval:pending', () => log.push('pending'));
      const approvals = expectSuspended(h, await handle.result);
      log.push('outcome');
      expect(approvals.map((a) => a.toolName)).toEqual(['pay']);
      expect(log.indexOf('pending')).toBeLessThan(log.indexOf('B 1'));
      expect(log.slice(-3)).toEqual(['slow ran', 'B 2', 'outcome']);
      expect(slow.runs).toBe(2);

      const resumedLog: string[] = [];
      const engine = engineOver(journal, byPrompt(SCRIPTS, resumedLog));
      expect(await engine.resolveExternal(handle.runId, approvals[0]!.key, 'allow')).toBe(true);
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual(['paid', 'B done']);
      expect(resumedLog).toEqual(['A 1']);
      expect([slow.runs, pay.runs]).toEqual([2, 1]);
    });

    h.it('a resolution arriving while the other branch still runs completes the run without resume', async () => {
      const resolved: boolean[] = [];
      const { handle, model, pay, busy } = whileLive(memoryJournal(), async (key, live, engine) => resolved.push(await engine.resolveExternal(live.runId, key, 'allow')));
      expect(expectCompleted(h, await handle.result)).toEqual(['paid', 'B done']);
      expect([resolved, pay.runs, busy.runs]).toEqual([[true], 1, 1]);
      expect(turnsAsked(model).sort()).toEqual(['A 0', 'A 1', 'B 0', 'B 1']);
    });
  });

  h.describe('engine durability: identity and drift', () => {
    h.it("the agent's toolsetHash is resolveToolset's; the spawn entry records both hashes", async () => {
      const journal = memoryJournal();
      const tools = [counted('pay', { needsApproval: true }).def, counted('note').def];
      const wf = defineWorkflow({ name: 'ident' }, async (ctx) => (await ctx.agent('hello', { tools })).toolsetHash);
      const outcome = await engineOver(journal, scripted(['hi'])).run(wf, null, { runId: 'ident' }).result;
      const resolved = await resolveToolset(tools);
      expect(expectCompleted(h, outcome)).toBe(resolved.toolsetHash);
      expect(entriesOf(await journal.load('ident'), 'spawn')).toMatchObject([
        { prompt: 'hello', model: MODEL, toolsetHash: resolved.toolsetHash, authorityHash: resolved.authorityHash },
      ]);
    });

    h.it('a changed authority does not re-key: journaled results stand, the new policy meets new calls only', async () => {
      const journal = memoryJournal();
      const ran: string[] = [];
      const noteTool = (needsApproval: boolean) =>
        tool({ name: 'note', description: 'the note tool', parameters: { type: 'object' }, needsApproval, execute: async (input: unknown) => (ran.push(JSON.stringify(input)), 'noted') });
      let current = noteTool(false);
      const wf = defineWorkflow({ name: 'authority' }, async (ctx) => (await ctx.agent('note twice', { tools: [current] })).text);
      const model = scripted([call('note', { n: 1 }), call('note', { n: 2 }), 'done']);
      // The first run dies after its first turn's result is journaled (the store refuses the next append).
      let appends = 0;
      const flaky: JournalStore = {
        load: (id) => journal.load(id),
        // Lease entries (this store has no claim of its own) are not counted.
        append: (id, entries, expected) =>
          entries.every((e) => e.type === 'lease') || (appends += 1) <= 4 ? journal.append(id, entries, expected) : Promise.reject(new Error('disk gone')),
      };
      const first = await engineOver(flaky, model).run(wf, null, { runId: 'authority' }).result;
      expect(first.status).toBe('failed');
      expect(ran).toEqual(['{"n":1}']);
      const before = entriesOf(await journal.load('authority'), 'spawn');
      // Same contract, other authority: the approval flag flipped.
      current = noteTool(true);
      const resumed = await engineOver(journal, model).resume('authority', wf).result;
      const approvals = expectSuspended(h, resumed);
      expect(approvals.map((a) => a.input)).toEqual([{ n: 2 }]);
      // Not re-keyed: the journaled first turn was neither requested nor run again. Turn 1 is
      // asked twice because the first run died writing its response (never journaled).
      expect(entriesOf(await journal.load('authority'), 'spawn')).toEqual(before);
      expect(ran).toEqual(['{"n":1}']);
      expect(turnsAsked(model)).toEqual(['note twice 0', 'note twice 1', 'note twice 1']);
    });

    function lookupServer(description: string, hits: { n: number }): McpServer {
      const server = new McpServer({ name: 'lookup', version: '1.0.0' });
      server.registerTool('lookup', { description, inputSchema: { q: z.string() } }, ({ q }) => {
        hits.n += 1;
        return { content: [{ type: 'text', text: `found ${q}` }] };
      });
      return server;
    }

    for (const drift of [false, true]) {
      h.it(drift ? 'a tool description changed before resume re-keys: that agent runs fresh from turn 0' : 'the same server on resume replays the agent at no cost', async () => {
        const journal = memoryJournal();
        const hits = { n: 0 };
        const pay = counted('pay', { needsApproval: true });
        let source: McpToolSource = mcp({ transport: 'inprocess', server: lookupServer('Find a record.', hits) });
        const wf = defineWorkflow({ name: 'drift' }, async (ctx) => {
          const looked = await ctx.agent('look', { tools: [source] });
          const paid = await ctx.agent('pay', { tools: [pay.def] });
          return [looked.text, paid.text];
        });
        const scripts = { look: [call('lookup', { q: 'x' }), 'seen'], pay: PAY };
        const log: string[] = [];
        try {
          const handle = engineOver(journal, byPrompt(scripts, log)).run(wf, null);
          const [approval] = expectSuspended(h, await handle.result);
          expect([log, hits.n]).toEqual([['look 0', 'look 1', 'pay 0'], 1]);
          const spawned = entriesOf(await journal.load(handle.runId), 'spawn');
          await source.close();
          source = mcp({ transport: 'inprocess', server: lookupServer(drift ? 'Find a record, quickly.' : 'Find a record.', hits) });

          const resumed: string[] = [];
          const engine = engineOver(journal, byPrompt(scripts, resumed));
          await engine.resolveExternal(handle.runId, approval!.key, 'allow');
          expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual(['seen', 'paid']);
          const spawns = entriesOf(await journal.load(handle.runId), 'spawn');
          expect(pay.runs).toBe(1);
          if (!drift) {
            expect([resumed, hits.n, spawns]).toEqual([['pay 1'], 1, spawned]);
            return;
          }
          expect([resumed, hits.n]).toEqual([['look 0', 'look 1', 'pay 1'], 2]);
          const looks = spawns.filter((s) => s.prompt === 'look');
          expect(looks).toHaveLength(2);
          expect(looks[1]!.agent).not.toBe(looks[0]!.agent);
          expect(looks[1]!.toolsetHash).not.toBe(looks[0]!.toolsetHash);
          expect(spawns.filter((s) => s.prompt === 'pay')).toHaveLength(1);
        } finally {
          await source.close();
        }
      });
    }

    h.it('a list_changed while the agent runs leaves its toolset as it was', async () => {
      const server = new McpServer({ name: 'growing', version: '1.0.0' });
      let grown = false;
      server.registerTool('first', { description: 'The first tool.', inputSchema: {} }, () => {
        if (!grown) {
          grown = true;
          server.registerTool('second', { description: 'Appears mid-run.', inputSchema: {} }, () => ({ content: [] }));
        }
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      await using source = mcp({ transport: 'inprocess', server });
      let sourceSaw: string[] = [];
      const model = byPrompt({ grow: [call('first'), call('first'), 'done'] }, [], async (_prompt, n) => {
        // Proof the change reached the source while the agent was still running.
        if (n === 2) sourceSaw = (await source.tools()).map((t) => t.name);
      });
      const wf = defineWorkflow({ name: 'grow' }, async (ctx) => (await ctx.agent('grow', { tools: [source] })).text);
      expect(expectCompleted(h, await engineOver(memoryJournal(), model).run(wf, null).result)).toBe('done');
      expect(sourceSaw).toEqual(['first', 'second']);
      expect(model.requests.map((r) => r.tools.map((t) => t.name))).toEqual([['first'], ['first'], ['first']]);
    });

    h.it('identical spawns under Promise.all get ordinals in call order, stable across a resume', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      // Every other resolution is slow, so the first-called twin finishes resolving last.
      let lists = 0;
      const alternating: ToolSource = { id: 'alternating', tools: async () => ((lists += 1) % 2 === 1 ? (await sleep(20), [pay.def]) : [pay.def]) };
      const wf = defineWorkflow({ name: 'twins' }, async (ctx) => {
        const twins = await Promise.all([ctx.agent('twin', { tools: [alternating] }), ctx.agent('twin', { tools: [alternating] })]);
        return twins.map((t) => t.history.flatMap((m) => (m.role === 'tool' ? m.results.map((r) => r.isError) : [])));
      });
      const model = scripted(PAY);
      const handle = engineOver(journal, model).run(wf, null);
      expect(expectSuspended(h, await handle.result)).toHaveLength(2);
      const spawns = entriesOf(await journal.load(handle.runId), 'spawn').map((s) => s.agent);
      const stem = spawns[0]!.slice(0, spawns[0]!.lastIndexOf('-'));
      expect([...spawns].sort()).toEqual([`${stem}-0`, `${stem}-1`]);
      // Allow ordinal 0's ask only: the first-called twin must be the one that paid.
      const engine = engineOver(journal, model);
      for (const ask of entriesOf(await journal.load(handle.runId), 'approval')) {
        await engine.resolveExternal(handle.runId, ask.key, ask.agent.endsWith('-0') ? 'allow' : 'deny');
      }
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual([[false], [true]]);
      expect(entriesOf(await journal.load(handle.runId), 'spawn').map((s) => s.agent)).toEqual(spawns);
      expect([model.calls, pay.runs]).toEqual([4, 1]);
    });
  });

  h.describe('engine durability: journal', () => {
    /** memoryJournal, keeping a copy of every append as one batch. */
    function recording(): { store: JournalStore; batches: JournalEntry[][] } {
      const inner = memoryJournal();
      const batches: JournalEntry[][] = [];
      return {
        batches,
        store: {
          load: (runId) => inner.load(runId),
          append: async (runId, entries, expected) => {
            await inner.append(runId, entries, expected);
            batches.push(JSON.parse(JSON.stringify(entries)) as JournalEntry[]);
          },
        },
      };
    }

    h.it('entries are plain v1 JSON; turn before its tools, the checkpoint before the ask, results before the next turn', async () => {
      const { store, batches } = recording();
      const runId = 'ordered';
      const checks: string[] = [];
      const has = async (what: (e: JournalEntry) => boolean) => (await store.load(runId)).some(what);
      const note = counted('note', { onRun: async () => checks.push(`note saw turn 0: ${await has((e) => e.type === 'turn' && e.turn === 0)}`) });
      const pay = counted('pay', { needsApproval: true });
      const model = byPrompt({ go: [{ toolCalls: [{ name: 'note', input: {} }, { name: 'pay', input: { amount: 3 } }, { name: 'note', input: {} }] }, 'done'] }, [], async (_p, n) => {
        if (n === 1) checks.push(`turn 1 saw ${(await store.load(runId)).filter((e) => e.type === 'tool').length} results`);
      });
      const wf = defineWorkflow({ name: 'ordered' }, async (ctx) => (await ctx.agent('go', { tools: [note.def, pay.def] })).text);
      const [approval] = expectSuspended(h, await engineOver(store, model).run(wf, null, { runId }).result);
      // The call after the ask waits behind it.
      expect(note.runs).toBe(1);
      const at = (what: (e: JournalEntry) => boolean) => batches.findIndex((b) => b.some(what));
      const turn0 = at((e) => e.type === 'turn');
      const tool0 = at((e) => e.type === 'tool' && e.index === 0);
      const ask = at((e) => e.type === 'approval');
      expect(turn0).toBeGreaterThanOrEqual(0);
      expect(turn0).toBeLessThan(tool0);
      expect(tool0).toBe(ask);
      expect(batches[ask]!.map((e) => e.type)).toEqual(['tool', 'approval']);

      const engine = engineOver(store, model);
      await engine.resolveExternal(runId, approval!.key, 'allow');
      expect(expectCompleted(h, await engine.resume(runId, wf).result)).toBe('done');
      expect(checks).toEqual(['note saw turn 0: true', 'note saw turn 0: true', 'turn 1 saw 3 results']);
      const entries = await store.load(runId);
      // The recording store has no claim of its own: the engine keeps its lease in lease entries.
      expect(entries.filter((e) => e.type !== 'lease').map((e) => e.type)).toEqual(['run:start', 'spawn', 'turn', 'tool', 'approval', 'resolution', 'tool', 'tool', 'turn', 'agent:end', 'run:end']);
      // The last turn and its agent's end are one append (one sync on a durable store); the
      // first turn, which asked for tools, went alone, before any of its calls ran.
      const typesOf = (what: (e: JournalEntry) => boolean) => batches.find((b) => b.some(what))?.filter((e) => e.type !== 'lease').map((e) => e.type);
      expect(typesOf((e) => e.type === 'agent:end')).toEqual(['turn', 'agent:end']);
      expect(batches[turn0]!.filter((e) => e.type !== 'lease').map((e) => e.type)).toEqual(['turn']);
      for (const e of entries) {
        expect(Object.getPrototypeOf(e)).toBe(Object.prototype);
        expect(e.v).toBe(1);
        expect(JSON.parse(JSON.stringify(e))).toEqual(e);
      }
    });

    h.it('a step is journaled before the workflow sees it and never runs again on resume', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      let draws = 0;
      const seen: boolean[] = [];
      const wf = defineWorkflow({ name: 'stepper' }, async (ctx) => {
        const drawn = await ctx.step('draw', () => ({ drawn: (draws += 1) * 10 }));
        seen.push((await journal.load(ctx.runId)).some((e) => e.type === 'step' && e.name === 'draw'));
        await ctx.agent('pay the invoice', { tools: [pay.def] });
        return drawn;
      });
      const model = scripted(PAY);
      const handle = engineOver(journal, model).run(wf, null);
      const [approval] = expectSuspended(h, await handle.result);
      const engine = engineOver(journal, model);
      await engine.resolveExternal(handle.runId, approval!.key, 'allow');
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual({ drawn: 10 });
      expect([draws, seen]).toEqual([1, [true, true]]);
    });

    h.it('a store whose appends always conflict fails the run with journal.conflict before any model call', async () => {
      const inner = memoryJournal();
      const store: JournalStore = {
        load: (runId) => inner.load(runId),
        append: () => Promise.reject(new RulvarError('journal.conflict', 'another engine wrote first')),
      };
      const model = scripted(PAY);
      const outcome = await engineOver(store, model).run(payer(counted('pay').def), null).result;
      expect(outcome.status).toBe('failed');
      expect(outcome.status === 'failed' && outcome.error.code).toBe('journal.conflict');
      expect(model.calls).toBe(0);
    });

    h.it('a store that returns what is not a journal fails resume and pending with journal.corrupt, naming the entry', async () => {
      const shapes: ReadonlyArray<readonly [string, unknown]> = [
        ['not a list', { entries: [] }],
        ['an entry of another format', [{ v: 99, type: 'run:start', workflow: 'payer', args: null, at: '' }]],
        ['an entry of an unknown type', [{ v: 1, type: 'run:start', workflow: 'payer', args: null, at: '' }, { v: 1, type: 'mystery' }]],
        ['a null entry', [null]],
      ];
      for (const [what, loaded] of shapes) {
        const store: JournalStore = { load: async () => loaded as JournalEntry[], append: async () => undefined };
        const model = scripted(PAY);
        const outcome = await engineOver(store, model).resume('corrupt', payer(counted('pay').def)).result;
        expect({ what, status: outcome.status, code: outcome.status === 'failed' ? outcome.error.code : undefined }).toEqual({ what, status: 'failed', code: 'journal.corrupt' });
        expect(outcome.status === 'failed' && outcome.error.message).toContain('"corrupt"');
        const pending = await caught(() => engineOver(store, model).pending('corrupt'));
        expect((pending as { code?: string }).code).toBe('journal.corrupt');
        expect(model.calls).toBe(0);
      }
    });

    h.it('a turn that cannot be journaled fails the run before any of its tool calls runs', async () => {
      const inner = memoryJournal();
      const store: JournalStore = {
        load: (runId) => inner.load(runId),
        append: (runId, entries, expected) =>
          entries.some((e) => e.type === 'turn') ? Promise.reject(new RulvarError('journal.conflict', 'lost the race')) : inner.append(runId, entries, expected),
      };
      const note = counted('note');
      const model = scripted([call('note'), 'done']);
      const wf = defineWorkflow({ name: 'noted' }, async (ctx) => (await ctx.agent('go', { tools: [note.def] })).text);
      const outcome = await engineOver(store, model).run(wf, null).result;
      expect(outcome.status === 'failed' && outcome.error.code).toBe('journal.conflict');
      expect([model.calls, note.runs]).toEqual([1, 0]);
    });

    h.it('tool results that cannot be written fail the run with no end; the next resume runs the tool once more and completes, and later ones run nothing', async () => {
      // Issue 23 item 4: a failed write must never leave a run that reruns its effects on every resume.
      const inner = memoryJournal();
      let failures = 1;
      const store: JournalStore = {
        load: (runId) => inner.load(runId),
        append: (runId, entries, expected) =>
          failures > 0 && entries.some((e) => e.type === 'tool')
            ? ((failures -= 1), Promise.reject(new RulvarError('journal.unavailable', 'the disk went away')))
            : inner.append(runId, entries, expected),
      };
      const pay = counted('pay');
      const handle = engineOver(store, scripted(PAY)).run(payer(pay.def), null);
      const outcome = await handle.result;
      expect(outcome.status === 'failed' && outcome.error.code).toBe('journal.unavailable');
      expect(pay.runs).toBe(1);
      expect((await inner.load(handle.runId)).some((e) => e.type === 'run:end')).toBe(false);
      const resumed = await engineOver(store, scripted(PAY)).resume(handle.runId, payer(pay.def)).result;
      expect(expectCompleted(h, resumed)).toEqual({ text: 'paid', args: null });
      // At least once, as the durability contract says: the unrecorded call ran again, once.
      expect(pay.runs).toBe(2);
      for (let i = 0; i < 2; i += 1) {
        const model = scripted(PAY);
        expect(expectCompleted(h, await engineOver(store, model).resume(handle.runId, payer(pay.def)).result)).toEqual({ text: 'paid', args: null });
        expect([model.calls, pay.runs]).toEqual([0, 2]);
      }
    });

    h.it('memoryJournal: a wrong expectedLength conflicts and changes nothing; unknown runs are []; the store shares nothing writable', async () => {
      const journal = memoryJournal();
      expect(await journal.load('never')).toEqual([]);
      const step: JournalEntry = { type: 'step', v: 1, name: 'a', value: { n: 1, list: [{ m: 2 }] } };
      await journal.append('r', [step], 0);
      for (const expected of [0, 2]) {
        const error = await caught(() => journal.append('r', [{ ...step, name: 'b' }], expected));
        expect(RulvarError.is(error) && error.code).toBe('journal.conflict');
      }
      // Loads hand back the kept entries, frozen to the leaves: a reader cannot change the store.
      const loaded = await journal.load('r');
      const value = (loaded[0] as { value: { n: number; list: { m: number }[] } }).value;
      expect(() => (value.n = 99)).toThrow(TypeError);
      expect(() => (value.list[0]!.m = 99)).toThrow(TypeError);
      expect(() => value.list.push({ m: 3 })).toThrow(TypeError);
      loaded.push(step);
      // ...and the writer's own objects were copied, not frozen or kept.
      (step.value as { n: number }).n = 98;
      expect(Object.isFrozen(step.value)).toBe(false);
      expect(await journal.load('r')).toEqual([{ type: 'step', v: 1, name: 'a', value: { n: 1, list: [{ m: 2 }] } }]);
    });

    h.it('memoryJournal keeps what JSON would give back: a __proto__ member stays data, undefined members go, a cycle refuses the whole append', async () => {
      const journal = memoryJournal();
      const value = JSON.parse('{"__proto__": {"polluted": true}, "gone": null}') as Record<string, unknown>;
      value['gone'] = undefined;
      await journal.append('r', [{ type: 'step', v: 1, name: 'a', value }], 0);
      const [kept] = await journal.load('r');
      const keptValue = (kept as { value: object }).value;
      expect(Object.getPrototypeOf(keptValue)).toBe(Object.prototype);
      expect(Object.keys(keptValue)).toEqual(['__proto__']);
      expect(JSON.stringify(keptValue)).toBe('{"__proto__":{"polluted":true}}');
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      const ok: JournalEntry = { type: 'step', v: 1, name: 'b', value: 1 };
      const error = await caught(() => journal.append('r', [ok, { type: 'step', v: 1, name: 'c', value: cyclic }], 1));
      expect(RulvarError.is(error) && error.code).toBe('config.invalid_value');
      expect(String((error as Error).message)).toContain('journal entry 2 of run "r" is not JSON');
      expect(await journal.load('r')).toHaveLength(1);
    });
  });

  h.describe('engine durability: resume refusals', () => {
    h.it('unknown run, other workflow, other args are refused without a model call; key order and omitted args are fine', async () => {
      const journal = memoryJournal();
      const pay = counted('pay', { needsApproval: true });
      const wf = payer(pay.def);
      const args = { a: 1, b: { c: 2, d: [1, 2] } };
      const handle = engineOver(journal, scripted(PAY)).run(wf, args);
      const [approval] = expectSuspended(h, await handle.result);
      const before = await journal.load(handle.runId);
      const model = scripted(PAY);
      const engine = engineOver(journal, model);
      const refusals: ReadonlyArray<readonly [string, Promise<RunOutcome>]> = [
        ['journal.unknown_run', engine.resume('never-ran', wf).result],
        ['journal.workflow_mismatch', engine.resume(handle.runId, payer(pay.def, 'other')).result],
        ['journal.args_mismatch', engine.resume(handle.runId, wf, { args: { ...args, a: 2 } }).result],
        ['journal.args_mismatch', engine.resume(handle.runId, wf, { args: null }).result],
      ];
      for (const [code, result] of refusals) {
        const outcome = await result;
        expect(outcome.status === 'failed' && outcome.error.code).toBe(code);
      }
      expect(await journal.load(handle.runId)).toEqual(before);
      // Same args, other key order: not a mismatch; still waiting on the same approval.
      const reordered = await engine.resume(handle.runId, wf, { args: { b: { d: [1, 2], c: 2 }, a: 1 } }).result;
      expect(expectSuspended(h, reordered).map((a) => a.key)).toEqual([approval!.key]);
      expect(model.calls).toBe(0);
      await engine.resolveExternal(handle.runId, approval!.key, 'allow');
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual({ text: 'paid', args });
      expect(model.calls).toBe(1);
    });
  });

  h.describe('engine durability: events', () => {
    h.it('replayed turns and results are not announced again; approval:pending fires once, at ask time', async () => {
      const journal = memoryJournal();
      const note = counted('note');
      const pay = counted('pay', { needsApproval: true });
      const model = scripted([call('note'), call('pay', { amount: 1 }), 'done']);
      const wf = defineWorkflow({ name: 'announced' }, async (ctx) => (await ctx.agent('go', { tools: [note.def, pay.def] })).text);
      const watch = (handle: { on: (e: never, l: (ev: never) => void) => unknown }) => {
        const seen: string[] = [];
        const names = ['agent:start', 'turn:end', 'tool:end', 'approval:pending', 'approval:resolved'] as const;
        for (const name of names) {
          handle.on(name as never, ((ev: { turn?: number; toolName?: string }) => seen.push(`${name} ${ev.turn ?? ev.toolName ?? ''}`.trim())) as never);
        }
        return seen;
      };
      const engine = engineOver(journal, model);
      const handle = engine.run(wf, null);
      const first = watch(handle);
      const [approval] = expectSuspended(h, await handle.result);
      expect(first).toEqual(['agent:start', 'turn:end 0', 'tool:end note', 'turn:end 1', 'approval:pending pay']);
      // Resumed before anyone answered: it parks on the same ask again, announcing nothing.
      const early = engine.resume(handle.runId, wf);
      const quiet = watch(early);
      expect(expectSuspended(h, await early.result).map((a) => a.key)).toEqual([approval!.key]);
      expect(quiet).toEqual([]);
      await engine.resolveExternal(handle.runId, approval!.key, 'allow');
      const resumed = engine.resume(handle.runId, wf);
      const second = watch(resumed);
      expectCompleted(h, await resumed.result);
      expect(second).toEqual(['tool:end pay', 'turn:end 2']);
      const again = engine.resume(handle.runId, wf);
      const third = watch(again);
      expectCompleted(h, await again.result);
      expect(third).toEqual([]);
      expect([model.calls, note.runs, pay.runs]).toEqual([3, 1, 1]);
    });
  });

  h.describe('engine durability: an ended agent on resume', () => {
    const twoAgents = (note: ToolDef, pay: ToolDef, histories: unknown[]) =>
      defineWorkflow({ name: 'two-agents' }, async (ctx) => {
        const first = await ctx.agent('first', { tools: [note] });
        histories.push(first.history);
        const second = await ctx.agent('second', { tools: [pay] });
        return [first.text, first.turns, second.text];
      });
    const scripts = { first: [call('note', { n: 1 }), 'first done'], second: [call('pay', { amount: 2 }), 'second done'] };

    h.it('is taken from the journal: no model call, no tool run, the same frozen history as it had live', async () => {
      const journal = memoryJournal();
      const [note, pay] = [counted('note'), counted('pay', { needsApproval: true })];
      const histories: unknown[] = [];
      const log: string[] = [];
      const model = byPrompt(scripts, log);
      const wf = twoAgents(note.def, pay.def, histories);
      const handle = engineOver(journal, model).run(wf, null);
      const [approval] = expectSuspended(h, await handle.result);
      const engine = engineOver(journal, model);
      await engine.resolveExternal(handle.runId, approval!.key, 'allow');
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual(['first done', 2, 'second done']);
      expect(log).toEqual(['first 0', 'first 1', 'second 0', 'second 1']);
      expect([note.runs, pay.runs]).toEqual([1, 1]);
      expect(histories).toHaveLength(2);
      expect(histories[1]).toEqual(histories[0]);
      const replayed = histories[1] as Message[];
      expect(replayed.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(replayed.every((m) => Object.isFrozen(m) && (m.role !== 'tool' || Object.isFrozen(m.results)))).toBe(true);
    });

    h.it('whose journal lacks one of its results is replayed, and only what is missing runs again', async () => {
      const source = memoryJournal();
      const [note, pay] = [counted('note'), counted('pay', { needsApproval: true })];
      const histories: unknown[] = [];
      const model = byPrompt(scripts);
      const wf = twoAgents(note.def, pay.def, histories);
      const handle = engineOver(source, model).run(wf, null);
      const [approval] = expectSuspended(h, await handle.result);
      // The first agent's end is journaled, its one tool result is not.
      const kept = (await source.load(handle.runId)).filter((e) => !(e.type === 'tool' && e.result.toolName === 'note'));
      expect(kept.some((e) => e.type === 'agent:end')).toBe(true);
      const journal = memoryJournal();
      await journal.append(handle.runId, kept, 0);
      const engine = engineOver(journal, model);
      await engine.resolveExternal(handle.runId, approval!.key, 'allow');
      expect(expectCompleted(h, await engine.resume(handle.runId, wf).result)).toEqual(['first done', 2, 'second done']);
      expect([note.runs, pay.runs]).toEqual([2, 1]);
      expect(histories[1]).toEqual(histories[0]);
    });
  });

  h.describe('engine durability: secrets', () => {
    h.it('a header hook secret never reaches the journal of a run over streamable-http', async () => {
      const SECRET = 'sk-live-4f1c9a0b7e2d4c6a8f3e';
      const hits = { n: 0 };
      const endpoint = inProcessWire().local!(() => {
        const server = new McpServer({ name: 'lookup', version: '1.0.0' });
        server.registerTool('lookup', { description: 'Find a record.', inputSchema: { q: z.string() } }, ({ q }) => {
          hits.n += 1;
          return { content: [{ type: 'text', text: `found ${q}` }] };
        });
        return server;
      });
      await using source = mcp({ transport: 'streamable-http', url: endpoint.url, approval: true, http: { ...endpoint.http, headers: () => ({ authorization: `Bearer ${SECRET}` }) } });
      const journal = memoryJournal();
      const model = scripted([call('lookup', { q: 'x' }), call('lookup', { q: 'y' }), 'done']);
      const wf = defineWorkflow({ name: 'secretive' }, async (ctx) => (await ctx.agent('look', { tools: [source] })).text);
      const engine = engineOver(journal, model);
      const handle = engine.run(wf, null);
      // The first ask is allowed live, so the header went out on a real call; the second suspends.
      handle.on('approval:pending', (p) => {
        if ((p.input as { q: string }).q === 'x') void handle.resolveExternal(p.key, 'allow');
      });
      expectSuspended(h, await handle.result);
      expect(hits.n).toBe(1);
      expect(JSON.stringify(await journal.load(handle.runId))).not.toContain(SECRET.slice(3));
    });
  });
}
