/**
 * Idempotency keys (closing the at-least-once window where a tool can help): every call the
 * engine runs carries `ToolContext.idempotencyKey`, the same on the re-execution after a crash
 * between the side effect and its journaled result, different for every other call and run;
 * an imported MCP tool sends it in the `_meta` of `tools/call`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentOptions, JournalStore, ToolContext } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';

const MODEL = 'scripted:m';
const KEY_SHAPE = /^rulvar-[0-9a-f]{32}-\d+-\d+$/;

export function engineIdempotencySuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, dispatchTool, resolveToolset, mcp, IDEMPOTENCY_META_KEY } = h.lib;
  const expect = h.expect;

  /** A tool that keeps the context of every execution. */
  const keeping = (name: string, options: { needsApproval?: boolean } = {}) => {
    const seen: ToolContext[] = [];
    const def = tool({ name, description: name, parameters: { type: 'object' }, ...options, execute: (_input: unknown, ctx: ToolContext) => (seen.push(ctx), 'done') });
    return { def, keys: () => seen.map((ctx) => ctx.idempotencyKey) };
  };

  /** A journal whose first append of tool results fails: the process "dies" between a side effect and its journaled result. */
  const crashAtTheTurnBoundary = () => {
    const inner = memoryJournal();
    let failOnce = true;
    const crashing: JournalStore = {
      load: (runId) => inner.load(runId),
      append: async (runId, entries, expected) => {
        if (failOnce && entries.some((e) => e.type === 'tool')) {
          failOnce = false;
          throw new Error('the disk went away');
        }
        return inner.append(runId, entries, expected);
      },
    };
    return { inner, crashing };
  };

  h.describe('engine: idempotency keys', () => {
    h.it('every call gets its own key, and another run of the same workflow other keys', async () => {
      const note = keeping('note');
      const twoThenOne = () => scripted([{ toolCalls: [{ name: 'note', input: {} }, { name: 'note', input: {} }] }, { toolCalls: [{ name: 'note', input: {} }] }, 'done']);
      const wf = defineWorkflow({ name: 'notes' }, async (ctx) => (await ctx.agent('go', { tools: [note.def] })).text);
      await createEngine({ adapters: [twoThenOne()], defaults: { model: MODEL } }).run(wf, null).result;
      await createEngine({ adapters: [twoThenOne()], defaults: { model: MODEL } }).run(wf, null).result;
      const keys = note.keys();
      expect(keys).toHaveLength(6);
      for (const key of keys) expect(key).toMatch(KEY_SHAPE);
      expect(new Set(keys).size).toBe(6);
    });

    h.it('a call re-run after its result failed to reach the journal gets the same key', async () => {
      const { inner, crashing } = crashAtTheTurnBoundary();
      const note = keeping('note');
      const model = scripted([{ toolCalls: [{ name: 'note', input: {} }] }, 'done']);
      const wf = defineWorkflow({ name: 'notes' }, async (ctx) => (await ctx.agent('go', { tools: [note.def] })).text);
      const first = createEngine({ adapters: [model], journal: crashing, defaults: { model: MODEL } }).run(wf, null);
      expect((await first.result).status).toBe('failed');
      const resumed = await createEngine({ adapters: [model], journal: inner, defaults: { model: MODEL } }).resume(first.runId, wf).result;
      expect(resumed).toEqual({ status: 'completed', value: 'done' });
      const [once, again] = note.keys();
      expect(once).toMatch(KEY_SHAPE);
      expect(again).toBe(once);
      expect(model.calls).toBe(2);
    });

    h.it('an approved call gets the key of its place, and dispatchTool passes one only when given', async () => {
      const pay = keeping('pay', { needsApproval: true });
      const model = scripted([{ toolCalls: [{ name: 'pay', input: {} }] }, 'paid']);
      const engine = createEngine({ adapters: [model], defaults: { model: MODEL } });
      const wf = defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('go', { tools: [pay.def] })).text);
      const outcome = await engine.run(wf, null).result;
      if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${outcome.status}`);
      const [approval] = outcome.approvals;
      await engine.resolveExternal(approval!.runId, approval!.key, 'allow');
      expect(await engine.resume(approval!.runId, wf).result).toEqual({ status: 'completed', value: 'paid' });
      expect(pay.keys()).toHaveLength(1);
      expect(pay.keys()[0]).toMatch(/^rulvar-[0-9a-f]{32}-0-0$/);

      const plain = keeping('plain');
      const toolset = await resolveToolset([plain.def]);
      await dispatchTool(toolset, { id: 'c', name: 'plain', input: {} }, { idempotencyKey: 'host-key' });
      await dispatchTool(toolset, { id: 'c', name: 'plain', input: {} });
      expect(plain.keys()).toEqual(['host-key', undefined]);
    });

    h.it(`an imported MCP tool sends the key in the _meta of tools/call, under ${JSON.stringify('io.rulvar/idempotency-key')}`, async () => {
      expect(IDEMPOTENCY_META_KEY).toBe('io.rulvar/idempotency-key');
      const received: unknown[] = [];
      const server = new McpServer({ name: 'ledger', version: '1.0.0' });
      server.registerTool('record', { description: 'Records an entry.', inputSchema: {} }, (_args, extra) => {
        received.push(extra._meta?.[IDEMPOTENCY_META_KEY]);
        return { content: [{ type: 'text', text: 'recorded' }] };
      });
      await using source = mcp({ transport: 'inprocess', server });
      const model = scripted([{ toolCalls: [{ name: 'record', input: {} }] }, { toolCalls: [{ name: 'record', input: {} }] }, 'done']);
      const wf = defineWorkflow({ name: 'ledger' }, async (ctx) => (await ctx.agent('go', { tools: [source] })).text);
      expect(await createEngine({ adapters: [model], defaults: { model: MODEL } }).run(wf, null).result).toEqual({ status: 'completed', value: 'done' });
      expect(received).toHaveLength(2);
      for (const key of received) expect(key).toMatch(KEY_SHAPE);
      expect(received[0]).not.toBe(received[1]);
      // A host calling dispatchTool without a key sends no _meta member for it.
      const toolset = await resolveToolset([source]);
      await dispatchTool(toolset, { id: 'c', name: 'record', input: {} });
      expect(received[2]).toBeUndefined();

      // Re-run after a crash inside the window: the server sees the same key twice.
      received.length = 0;
      const { inner, crashing } = crashAtTheTurnBoundary();
      const once = scripted([{ toolCalls: [{ name: 'record', input: {} }] }, 'done']);
      const first = createEngine({ adapters: [once], journal: crashing, defaults: { model: MODEL } }).run(wf, null);
      expect((await first.result).status).toBe('failed');
      expect(await createEngine({ adapters: [once], journal: inner, defaults: { model: MODEL } }).resume(first.runId, wf).result).toEqual({ status: 'completed', value: 'done' });
      expect(received).toHaveLength(2);
      expect(received[0]).toMatch(KEY_SHAPE);
      expect(received[1]).toBe(received[0]);
    });
  });

  h.describe('engine: the content key', () => {
    const hex = async (text: string) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, '0')).join('');
    /** The spawn entries of a run, in order: agent key and the identity it journaled. */
    const spawns = async (journal: JournalStore, runId: string) => (await journal.load(runId)).filter((e) => e.type === 'spawn').map((e) => (e.type === 'spawn' ? e.agent : ''));
    /** A model that answers with what it was asked: two agents given one answer share a key. */
    const echo = () => scripted((request) => `${request.model}|${request.system ?? '-'}|${request.messages[0]?.role === 'user' ? request.messages[0].text : ''}`);

    h.it('is sha256 over the canonical JSON of { workflow, agentType, model, system, prompt, toolsetHash }, then the ordinal', async () => {
      const journal = memoryJournal();
      const note = keeping('note');
      const wf = defineWorkflow({ name: 'keyed' }, async (ctx) => [
        await ctx.agent('write it', { agentType: 'writer', system: 'be brief', tools: [note.def] }),
        await ctx.agent('write it', { agentType: 'writer', system: 'be brief', tools: [note.def] }),
        await ctx.agent('plain'),
      ]);
      const engine = createEngine({ adapters: [echo()], journal, defaults: { model: MODEL, profiles: { writer: { model: 'scripted:w' } } } });
      const handle = engine.run(wf, null);
      const outcome = await handle.result;
      if (outcome.status !== 'completed') throw new Error(JSON.stringify(outcome));
      const [a, , c] = outcome.value;
      const identity = { workflow: 'keyed', agentType: 'writer', model: 'scripted:w', system: 'be brief', prompt: 'write it', toolsetHash: a!.toolsetHash };
      const plain = { workflow: 'keyed', agentType: null, model: MODEL, system: null, prompt: 'plain', toolsetHash: c!.toolsetHash };
      const expected = [`${await hex(h.lib.canonicalJson(identity))}-0`, `${await hex(h.lib.canonicalJson(identity))}-1`, `${await hex(h.lib.canonicalJson(plain))}-0`];
      expect(await spawns(journal, handle.runId)).toEqual(expected);
    });

    h.it('two agents of one run that differ in only one member each pay their own model call', async () => {
      type Ctx = Parameters<Parameters<typeof defineWorkflow>[1]>[0];
      const cases: [string, AgentOptions, AgentOptions, string?][] = [
        ['system', { system: 'a' }, { system: 'b' }],
        ['model', { model: 'scripted:a' }, { model: 'scripted:b' }],
        ['agentType', { agentType: 'one' }, { agentType: 'two' }],
        ['prompt', {}, {}, 'q'],
        ['ordinal', {}, {}],
      ];
      for (const [member, first, second, secondPrompt = 'p'] of cases) {
        const journal = memoryJournal();
        const model = echo();
        // One after the other: the second agent starts after the first one's end is journaled,
        // so a key they shared would hand the second the first's result without a model call.
        const wf = defineWorkflow({ name: `differs-by-${member}` }, async (ctx: Ctx) => [(await ctx.agent('p', first)).text, (await ctx.agent(secondPrompt, second)).text]);
        const engine = createEngine({ adapters: [model], journal, defaults: { model: MODEL, profiles: { one: {}, two: {} } } });
        const handle = engine.run(wf, null);
        expect([member, (await handle.result).status]).toEqual([member, 'completed']);
        expect([member, model.calls]).toEqual([member, 2]);
        expect([member, new Set(await spawns(journal, handle.runId)).size]).toEqual([member, 2]);
      }
    });
  });
}
