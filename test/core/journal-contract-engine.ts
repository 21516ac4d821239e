/**
 * The engine over the store under test (issue 23 item 4: no store decides whether a run can
 * finish). One model turn calls seven tools that each return 10 MB, the most an MCP message
 * may carry, so the turn boundary appends 70 MB at once; the next turn asks for an approval,
 * and another engine over the store's twin resolves it and resumes. On every store: the run
 * suspends (so the big append landed), the resume replays the seven results from the store
 * without running any tool or model turn again, and the run completes with the model handed
 * each result whole.
 */
import { createEngine, defineWorkflow, tool, type ToolDef } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import type { ContractHarness, OpenedStore } from './journal-contract.suite.js';

const MIB = 1024 * 1024;
const defaults = { model: 'scripted:m' };

type WithStore = (body: (opened: OpenedStore) => Promise<void>) => () => Promise<void>;

export function journalEngineContract(h: ContractHarness, withStore: WithStore): void {
  const expect = h.expect;

  h.it('an engine run whose one turn returns seven 10 MB tool results suspends, resumes through the twin running nothing twice, and completes', withStore(async ({ store, twin }) => {
    const ran: string[] = [];
    const page = (i: number) => String.fromCharCode(97 + i).repeat(10 * MIB);
    const fetchers: ToolDef[] = Array.from({ length: 7 }, (_, i) =>
      tool({ name: `fetch_${i}`, description: 'Fetches one large page', parameters: { type: 'object' }, execute: () => (ran.push(`fetch_${i}`), page(i)) }),
    );
    const send = tool({ name: 'send', description: 'Sends the pages', parameters: { type: 'object' }, needsApproval: true, execute: () => (ran.push('send'), 'sent') });
    const script = () => scripted([{ toolCalls: fetchers.map((f) => ({ name: f.name, input: {} })) }, { toolCalls: [{ name: 'send', input: {} }] }, 'Sent all seven.']);
    const workflow = defineWorkflow({ name: 'big-pages' }, async (ctx) => (await ctx.agent('Fetch every page, then send them', { tools: [...fetchers, send] })).text);

    const first = script();
    const suspended = await createEngine({ adapters: [first], journal: store, defaults }).run(workflow, null).result;
    if (suspended.status !== 'suspended') throw new Error(`expected the run to suspend, got ${suspended.status}: ${String((suspended as { error?: unknown }).error)}`);
    expect([...ran].sort()).toEqual(fetchers.map((f) => f.name));
    expect(first.requests).toHaveLength(2);

    const [ask] = suspended.approvals;
    const second = script();
    const engine = createEngine({ adapters: [second], journal: twin(), defaults });
    await engine.resolveExternal(ask!.runId, ask!.key, 'allow');
    const done = await engine.resume(ask!.runId, workflow).result;
    expect(done).toMatchObject({ status: 'completed', value: 'Sent all seven.' });
    // Each fetch ran once in all, send once after the approval; only the last turn was asked for again.
    expect([...ran].sort()).toEqual([...fetchers.map((f) => f.name), 'send'].sort());
    expect(second.requests).toHaveLength(1);
    // The replayed results reached the model whole: read back from the store, not cut or lost.
    const results = (second.requests[0]?.messages ?? []).flatMap((m) => (m.role === 'tool' ? m.results : []));
    const outputs = results.filter((r) => r.toolName.startsWith('fetch_'));
    expect(outputs.map((r) => r.toolName).sort()).toEqual(fetchers.map((f) => f.name));
    for (const result of outputs) {
      expect(result.isError).toBe(false);
      // Compared by length and ends: a 10 MB diff would drown a failure's message.
      const expected = page(Number(result.toolName.slice('fetch_'.length)));
      expect(typeof result.output === 'string' && result.output.length).toBe(expected.length);
      expect(result.output === expected).toBe(true);
    }
    // A guard against a hang only: 140 MB through a store and back, on a gate running two lanes at once.
  }), 240_000);
}
