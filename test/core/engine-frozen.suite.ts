/**
 * Journaled values are frozen JSON, the same live and on resume, whichever store: what a
 * step returns, an agent's history, a tool's input, a run's value. Nothing outside the engine
 * can change a journaled fact afterwards, and a journal that does not hold well-formed JSON
 * entries is refused typed (journal.corrupt), never half-applied.
 */
import type { JournalEntry, JournalStore, ModelAdapter, ModelResponse, RunOutcome } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';

const MODEL = 'scripted:m';

/** Every object and array in `value` is frozen (primitives count as frozen). */
function frozenThrough(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenThrough);
}

/** What `change` threw: the TypeError a frozen value gives strict code, or 'changed'. */
function tryChange(change: () => void): string {
  try {
    change();
    return 'changed';
  } catch (error) {
    return (error as Error).name;
  }
}

/** A store that keeps JSON text, as a durable store does: loads are fresh, unfrozen objects. */
function textJournal(): JournalStore & { lines: Map<string, string[]> } {
  const lines = new Map<string, string[]>();
  return {
    lines,
    async load(runId) {
      return (lines.get(runId) ?? []).map((line) => JSON.parse(line) as JournalEntry);
    },
    async append(runId, entries, expectedLength) {
      const kept = lines.get(runId) ?? [];
      if (kept.length !== expectedLength) throw new Error('conflict');
      lines.set(runId, [...kept, ...entries.map((e) => JSON.stringify(e))]);
    },
  };
}

export function engineFrozenSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, RulvarError } = h.lib;
  const expect = h.expect;

  const completed = (outcome: RunOutcome): unknown => {
    if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}: ${String((outcome as { error?: unknown }).error)}`);
    return outcome.value;
  };

  h.describe('engine: journaled values are frozen JSON', () => {
    for (const store of ['memoryJournal', 'a JSON text store'] as const) {
      h.it(`a step's value, an agent's history and a run's value are frozen live and on resume (${store})`, async () => {
        const journal = store === 'memoryJournal' ? memoryJournal() : textJournal();
        const seen: string[] = [];
        const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: () => ({ paid: true }) });
        const wf = defineWorkflow({ name: 'frozen' }, async (ctx) => {
          const list = await ctx.step('list', () => ({ items: [3, 1, 2] }));
          seen.push(`step ${tryChange(() => list.items.sort())} ${frozenThrough(list)}`);
          const result = await ctx.agent('go', { tools: [pay] });
          seen.push(`history ${result.history.length} ${result.history.every(frozenThrough)}`);
          return { sorted: [...list.items].sort(), text: result.text };
        });
        const model = scripted([{ toolCalls: [{ name: 'pay', input: { amount: 5 } }] }, 'done']);
        const engine = createEngine({ adapters: [model], journal, defaults: { model: MODEL } });
        const first = await engine.run(wf, null).result;
        if (first.status !== 'suspended') throw new Error(`expected suspended, got ${first.status}`);
        expect(seen).toEqual(['step TypeError true']);
        await engine.resolveExternal(first.approvals[0]!.runId, first.approvals[0]!.key, 'allow');
        const value = completed(await createEngine({ adapters: [model], journal, defaults: { model: MODEL } }).resume(first.approvals[0]!.runId, wf).result);
        // Replayed: the same frozen step value, and a history whose journaled parts are frozen.
        expect(seen).toEqual(['step TypeError true', 'step TypeError true', 'history 4 true']);
        expect(value).toEqual({ sorted: [1, 2, 3], text: 'done' });
        expect(frozenThrough(value)).toBe(true);
      });
    }

    h.it("a tool the default allows has one frozen audit, kept by reference in each of its journal entries", async () => {
      const bump = tool({ name: 'bump', description: 'bumps', parameters: { type: 'object' }, execute: () => 1 });
      const model = scripted([{ toolCalls: [{ name: 'bump', input: {} }, { name: 'bump', input: {} }] }, { toolCalls: [{ name: 'bump', input: {} }] }, 'done']);
      const wf = defineWorkflow({ name: 'bumps' }, (ctx) => ctx.agent('go', { tools: [bump] }));
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [model], journal, defaults: { model: MODEL } }).run(wf, null);
      completed(await handle.result);
      const audits = (await journal.load(handle.runId)).flatMap((e) => (e.type === 'tool' ? [e.audit] : []));
      expect(audits).toHaveLength(3);
      expect(audits[1]).toBe(audits[0]);
      expect(audits[2]).toBe(audits[0]);
      expect(frozenThrough(audits[0])).toBe(true);
      expect(audits[0]).toEqual({ verdict: 'allow', layer: 'default', advisory: [], reason: 'no permission layer objected to tool "bump"' });
    });

    h.it('a tool gets its input frozen: changing it in place is an error result the model reads', async () => {
      const edit = tool({
        name: 'edit',
        description: 'changes its input',
        parameters: { type: 'object' },
        execute: (input: { n?: number }) => ((input.n = 2), 'edited'),
      });
      const model = scripted([{ toolCalls: [{ name: 'edit', input: { n: 1 } }] }, 'done']);
      const wf = defineWorkflow({ name: 'edit' }, (ctx) => ctx.agent('go', { tools: [edit] }));
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [model], journal, defaults: { model: MODEL } }).run(wf, null);
      completed(await handle.result);
      const last = model.requests.at(-1)?.messages.at(-1);
      const result = last?.role === 'tool' ? last.results[0] : undefined;
      expect(result?.isError).toBe(true);
      expect(String(result?.output)).toMatch(/read.only|not extensible|Cannot assign/i);
      const turn = (await journal.load(handle.runId)).find((e) => e.type === 'turn');
      expect(turn?.type === 'turn' && turn.response.toolCalls[0]?.input).toEqual({ n: 1 });
    });

    h.it('an adapter that reuses and changes its response object, and a tool that changes the output it returned, change nothing journaled', async () => {
      const reused: { text: string; toolCalls: { id: string; name: string; input: { step: number } }[]; stopReason: ModelResponse['stopReason'] } = {
        text: '',
        toolCalls: [{ id: 'c0', name: 'state', input: { step: 0 } }],
        stopReason: 'tool_calls',
      };
      let calls = 0;
      const adapter: ModelAdapter = {
        id: 'reuse',
        async generate() {
          calls += 1;
          if (calls === 1) return reused;
          // The second answer is the first object, rewritten.
          reused.text = 'done';
          reused.toolCalls.length = 0;
          reused.stopReason = 'end';
          return reused;
        },
      };
      const state = { count: 1 };
      const stateTool = tool({ name: 'state', description: 'returns its state', parameters: { type: 'object' }, execute: () => state });
      const journal = memoryJournal();
      const wf = defineWorkflow({ name: 'reuse' }, async (ctx) => {
        const result = await ctx.agent('go', { tools: [stateTool] });
        state.count = 99;
        return result.history;
      });
      const handle = createEngine({ adapters: [adapter], journal, defaults: { model: 'reuse:m' } }).run(wf, null);
      const history = completed(await handle.result) as { role: string; toolCalls?: unknown[]; results?: { output: unknown }[] }[];
      expect(history[1]?.toolCalls).toEqual([{ id: 'c0', name: 'state', input: { step: 0 } }]);
      expect(history[2]?.results?.[0]?.output).toEqual({ count: 1 });
      const entries = await journal.load(handle.runId);
      const turns = entries.flatMap((e) => (e.type === 'turn' ? [e.response] : []));
      expect(turns.map((r) => [r.text, r.toolCalls.length])).toEqual([['', 1], ['done', 0]]);
      expect(entries.flatMap((e) => (e.type === 'tool' ? [e.result.output] : []))).toEqual([{ count: 1 }]);
      expect(entries.every(frozenThrough)).toBe(true);
    });
  });

  h.describe('engine: a journal that is not well-formed is journal.corrupt', () => {
    const corrupted = (entries: readonly unknown[]): JournalStore => ({
      load: async () => entries.map((e) => e as JournalEntry),
      append: async () => undefined,
    });
    const start = { v: 1, type: 'run:start', workflow: 'w', args: null, at: '2026-12-01T00:00:00.000Z' };
    const cases: [string, unknown][] = [
      ['a turn that is not an integer', { v: 1, type: 'turn', agent: 'a-0', turn: '__proto__', response: { text: '', toolCalls: [], stopReason: 'end' } }],
      ['a negative turn', { v: 1, type: 'turn', agent: 'a-0', turn: -1, response: { text: '', toolCalls: [], stopReason: 'end' } }],
      ['a turn too far out', { v: 1, type: 'turn', agent: 'a-0', turn: 2 ** 40, response: { text: '', toolCalls: [], stopReason: 'end' } }],
      ['a tool index that is not an integer', { v: 1, type: 'tool', agent: 'a-0', turn: 0, index: 0.5, result: {}, audit: {} }],
      ['a value JSON cannot hold', { v: 1, type: 'step', name: 's', value: 10n }],
    ];
    h.it('a list with a hole in it: resume refuses, naming the hole, before the workflow runs', async () => {
      let ran = false;
      const wf = defineWorkflow({ name: 'w' }, async () => {
        ran = true;
        return 'ran';
      });
      const sparse: JournalEntry[] = [start as JournalEntry];
      sparse[2] = { v: 1, type: 'step', name: 's', value: 1 } as JournalEntry;
      const outcome = await createEngine({ adapters: [scripted([])], journal: { load: async () => sparse, append: async () => undefined } }).resume('r', wf).result;
      const error = outcome.status === 'failed' ? outcome.error : undefined;
      expect(RulvarError.is(error) && error.code).toBe('journal.corrupt');
      expect(String(error?.message)).toMatch(/entry 1/);
      expect(ran).toBe(false);
    });

    for (const [what, bad] of cases) {
      h.it(`${what}: resume refuses before the workflow runs`, async () => {
        let ran = false;
        const wf = defineWorkflow({ name: 'w' }, async () => {
          ran = true;
          return 'ran';
        });
        const outcome = await createEngine({ adapters: [scripted([])], journal: corrupted([start, bad]) }).resume('r', wf).result;
        expect(outcome.status).toBe('failed');
        const error = outcome.status === 'failed' ? outcome.error : undefined;
        expect(RulvarError.is(error) && error.code).toBe('journal.corrupt');
        expect(String(error?.message)).toMatch(/entry 1/);
        expect(ran).toBe(false);
      });
    }
  });
}
