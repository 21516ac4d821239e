/**
 * The engine streaming a turn (spec/runtime.md, "Streaming, progress, traces"): `turn:delta`
 * events whose text concatenates to the journaled text and whose tool-call deltas to the
 * journaled calls; only the assembled answer journaled, checked as a `generate` answer; a cut,
 * broken or stalled stream retried and journaling nothing; a replayed turn never streamed again;
 * secrets split across deltas scrubbed from events and journal alike.
 */
import type { JournalEntry, ModelAdapter, ModelDelta, ModelRequest, RunHandle, RunOutcome } from '../../src/core/index.js';
import { DeltaAssembler, STREAM_BOUNDS } from '../../src/core/model/assemble.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';

const MODEL = 'custom:m';
const KEY = 'sk-live-0123456789abcdefXYZ';

type Turn = { turn: number; attempt: number; delta: ModelDelta };

/** Every `turn:delta` of a run, in order. */
function deltasOf(handle: RunHandle<unknown>): Turn[] {
  const seen: Turn[] = [];
  handle.on('turn:delta', ({ turn, attempt, delta }) => seen.push({ turn, attempt, delta }));
  return seen;
}

/** What the deltas of one turn and attempt join to: the text, and each call with its parsed input. */
function joined(deltas: readonly Turn[], turn: number, attempt = 0) {
  const mine = deltas.filter((d) => d.turn === turn && d.attempt === attempt).map((d) => d.delta);
  const calls = new Map<number, { id?: string; name?: string; input: string }>();
  for (const d of mine) {
    if (d.type !== 'tool_call') continue;
    const call = calls.get(d.index) ?? { input: '' };
    calls.set(d.index, { ...call, ...(d.id === undefined ? {} : { id: d.id }), ...(d.name === undefined ? {} : { name: d.name }), input: call.input + (d.inputDelta ?? '') });
  }
  return {
    text: mine.map((d) => (d.type === 'text' ? d.text : '')).join(''),
    toolCalls: [...calls.values()].map((c) => ({ id: c.id, name: c.name, input: c.input === '' ? {} : (JSON.parse(c.input) as unknown) })),
  };
}

const turnsOf = (entries: readonly JournalEntry[]) => entries.flatMap((e) => (e.type === 'turn' ? [e] : []));

/** An adapter whose n-th stream call sends `plans[n]` (a list of deltas; `'throw'` throws there, a missing `end` cuts it). */
function planned(plans: readonly (readonly (ModelDelta | 'throw')[])[], extra: Partial<ModelAdapter> = {}): ModelAdapter & { streams: number } {
  const adapter: ModelAdapter & { streams: number } = {
    id: 'custom',
    streams: 0,
    generate: () => Promise.reject(new Error('generate must not be called when the adapter streams')),
    async *stream(_request: ModelRequest): AsyncGenerator<ModelDelta> {
      const plan = plans[adapter.streams++] ?? [];
      for (const step of plan) {
        if (step === 'throw') throw new Error('connection reset');
        await Promise.resolve();
        yield step;
      }
    },
    ...extra,
  };
  return adapter;
}

export function engineStreamSuite(h: SuiteHarness): void {
  // The runtime's own build: the engine knows a redact made by its own secretRedactor only.
  const { createEngine, defineWorkflow, memoryJournal, secretRedactor, tool } = h.lib;
  const { expect } = h;
  const FAST = { baseDelayMs: 1 };
  const lookup = tool({ name: 'lookup', description: 'looks up', parameters: { type: 'object' }, execute: () => 'found' });
  const agentOnce = defineWorkflow({ name: 'stream-once' }, (ctx) => ctx.agent('go', { tools: [lookup] }));

  const completed = (outcome: RunOutcome<unknown>) => {
    if (outcome.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
    return outcome.value;
  };

  h.describe('engine streaming', () => {
    h.it('turn:delta text and tool-call deltas concatenate to what is journaled, turn by turn', async () => {
      const model = scripted(
        [{ text: 'let me look that up', toolCalls: [{ name: 'lookup', input: { q: 'the answer', n: [1, 2, 3] } }] }, { text: 'it is 42, é 😀 and more', usage: { inputTokens: 9, outputTokens: 4 } }],
        { stream: { chunkChars: 3 } },
      );
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m' } }).run(agentOnce, null);
      const deltas = deltasOf(handle);
      expect(completed(await handle.result)).toMatchObject({ text: 'it is 42, é 😀 and more' });
      const turns = turnsOf(await journal.load(handle.runId));
      expect(turns).toHaveLength(2);
      for (const entry of turns) {
        const { text, toolCalls } = joined(deltas, entry.turn);
        expect(text).toBe(entry.response.text);
        expect(toolCalls).toEqual(entry.response.toolCalls);
      }
      // Streamed in pieces, not once whole: the second turn's text took 8 text deltas.
      expect(deltas.filter((d) => d.turn === 1 && d.delta.type === 'text').length).toBe(8);
      expect(turns[1]?.response).toEqual({ text: 'it is 42, é 😀 and more', toolCalls: [], stopReason: 'end', usage: { inputTokens: 9, outputTokens: 4 } });
      expect(deltas.at(-1)?.delta).toEqual({ type: 'end', stopReason: 'end' });
    });

    h.it('a cut stream journals nothing and is retried: the retry streams again as attempt 1', async () => {
      const model = planned([
        [{ type: 'text', text: 'half an ans' }],
        [{ type: 'text', text: 'a whole ' }, { type: 'text', text: 'answer' }, { type: 'end', stopReason: 'end' }],
      ]);
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [model], journal, defaults: { model: MODEL, retry: FAST } }).run(agentOnce, null);
      const deltas = deltasOf(handle);
      expect(completed(await handle.result)).toMatchObject({ text: 'a whole answer' });
      expect(model.streams).toBe(2);
      expect(joined(deltas, 0, 0).text).toBe('half an ans');
      expect(joined(deltas, 0, 1).text).toBe('a whole answer');
      // The journal is append-only: one turn entry, the retry's, is all that was ever written.
      expect(turnsOf(await journal.load(handle.runId)).map((t) => t.response.text)).toEqual(['a whole answer']);
    });

    h.it('a stream that throws midway is retried; one that fails before its first delta is final, as generate', async () => {
      const broken = planned([[{ type: 'text', text: 'so' }, 'throw'], [{ type: 'text', text: 'fine' }, { type: 'end', stopReason: 'end' }]]);
      const handle = createEngine({ adapters: [broken], defaults: { model: MODEL, retry: FAST } }).run(agentOnce, null);
      expect(completed(await handle.result)).toMatchObject({ text: 'fine' });
      expect(broken.streams).toBe(2);

      const refused = planned([['throw'], [{ type: 'end', stopReason: 'end' }]]);
      const outcome = await createEngine({ adapters: [refused], defaults: { model: MODEL, retry: FAST } }).run(agentOnce, null).result;
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'model.failed' } });
      expect(refused.streams).toBe(1);
    });

    h.it('a stream that stalls is ended by modelCallMs, journals nothing, and is retried', async () => {
      let calls = 0;
      const stalling: ModelAdapter = {
        id: 'custom',
        generate: () => Promise.reject(new Error('unused')),
        async *stream(_request, signal) {
          calls += 1;
          yield { type: 'text', text: calls === 1 ? 'wait for it' : 'done' };
          if (calls === 1) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
          yield { type: 'end', stopReason: 'end' };
        },
      };
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [stalling], journal, defaults: { model: MODEL, retry: FAST, modelCallMs: 100 } }).run(agentOnce, null);
      expect(completed(await handle.result)).toMatchObject({ text: 'done' });
      expect(calls).toBe(2);
      expect(turnsOf(await journal.load(handle.runId)).map((t) => t.response.text)).toEqual(['done']);
    });

    h.it('a resumed run replays its journaled turn without streaming it, and streams only the new one', async () => {
      const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: () => 'paid' });
      const wf = defineWorkflow({ name: 'stream-pay' }, (ctx) => ctx.agent('pay it', { tools: [pay] }));
      const script = [{ text: 'paying', toolCalls: [{ name: 'pay', input: { amount: 5 } }] }, 'paid it'];
      const journal = memoryJournal();
      const engine = createEngine({ adapters: [scripted(script, { stream: true })], journal, defaults: { model: 'scripted:m' } });
      const first = engine.run(wf, null);
      const before = deltasOf(first);
      const outcome = await first.result;
      if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${outcome.status}`);
      expect(joined(before, 0).text).toBe('paying');
      const model = scripted(script, { stream: true });
      const again = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m' } });
      expect(await again.resolveExternal(first.runId, outcome.approvals[0]!.key, 'allow')).toBe(true);
      const resumed = again.resume(first.runId, wf);
      const after = deltasOf(resumed);
      expect(completed(await resumed.result)).toMatchObject({ text: 'paid it' });
      expect(model.calls).toBe(1);
      expect(after.every((d) => d.turn === 1)).toBe(true);
      expect(joined(after, 1).text).toBe('paid it');
    });

    h.it('a streamed answer is checked as a generate answer: a tool call without a name fails the agent, unretried', async () => {
      const model = planned([[{ type: 'tool_call', index: 0, id: 'c1', inputDelta: '{}' }, { type: 'end', stopReason: 'tool_calls' }]]);
      const outcome = await createEngine({ adapters: [model], defaults: { model: MODEL, retry: FAST } }).run(agentOnce, null).result;
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'model.failed' } });
      if (outcome.status === 'failed') expect(outcome.error.message).toContain('tool call 0 without a string id and name');
      expect(model.streams).toBe(1);
    });

    h.it('malformed deltas fail the agent typed, unretried: an unknown type, a sparse index, a second name', async () => {
      const cases: { deltas: unknown[]; says: string }[] = [
        { deltas: [{ type: 'picture' }], says: 'no known type' },
        { deltas: [{ type: 'tool_call', index: 4096, id: 'a', name: 'lookup' }], says: 'index is not an integer from 0 to 4095' },
        { deltas: [{ type: 'tool_call', index: 0, id: 'a', name: 'lookup' }, { type: 'tool_call', index: 0, name: 'other' }], says: 'second, different name' },
        { deltas: [{ type: 'text', text: 7 }], says: 'without a string text' },
        { deltas: [{ type: 'end', stopReason: 'whenever' }], says: 'unknown stopReason' },
      ];
      for (const { deltas, says } of cases) {
        const model = planned([deltas as ModelDelta[], [{ type: 'end', stopReason: 'end' }]]);
        const outcome = await createEngine({ adapters: [model], defaults: { model: MODEL, retry: FAST } }).run(agentOnce, null).result;
        expect(outcome).toMatchObject({ status: 'failed', error: { code: 'model.failed' } });
        if (outcome.status === 'failed') expect(outcome.error.message).toContain(says);
        expect(model.streams).toBe(1);
      }
    });

    h.it('the assembler bounds a stream: deltas, characters and tool calls, each one past its bound refused', () => {
      const small = { maxDeltas: 3, maxChars: 10, maxToolCalls: 2 };
      const feed = (deltas: unknown[]) => () => {
        const assembler = new DeltaAssembler(small);
        for (const d of deltas) assembler.add(assembler.check(d));
      };
      const text = (t: string) => ({ type: 'text', text: t });
      expect(feed([text('a'), text('b'), text('c')])).not.toThrow();
      expect(feed([text('a'), text('b'), text('c'), text('d')])).toThrow('more than 3 deltas');
      expect(feed([text('0123456789')])).not.toThrow();
      expect(feed([text('01234'), text('567890')])).toThrow('more than 10 characters');
      expect(feed([{ type: 'tool_call', index: 1, id: 'a', name: 'n' }])).not.toThrow();
      expect(feed([{ type: 'tool_call', index: 2, id: 'a', name: 'n' }])).toThrow('index is not an integer from 0 to 1');
      expect(STREAM_BOUNDS).toEqual({ maxDeltas: 1_000_000, maxChars: 32 * 1024 * 1024, maxToolCalls: 4096 });
    });

    // The shared redactor finds a secret from any 16 characters of it, so the engine holds back
    // 16 for a redact made from it; a hand-written one may match whole keys only, so 256.
    const wholeKeys = (text: string) => text.split(KEY).join('[redacted]');
    for (const [kind, redact, hold] of [['secretRedactor', secretRedactor([KEY]), 16], ['hand-written', wholeKeys, 256]] as const) {
      h.it(`a secret split across deltas at any point reaches neither an event nor the journal (a ${kind} redact, ${hold} held back)`, async () => {
        // Long enough on both sides that the engine emits while the key is still coming: these
        // first deltas put the holdback's edge just before, at every character inside, and just after the key.
        const text = `${'a'.repeat(300)} the key is ${KEY}, keep it ${'b'.repeat(300)}`;
        const clean = `${'a'.repeat(300)} the key is [redacted], keep it ${'b'.repeat(300)}`;
        const at = text.indexOf(KEY);
        for (let cut = at + hold - 3; cut <= at + KEY.length + hold + 3; cut += 1) {
          const model = planned([[{ type: 'text', text: text.slice(0, cut) }, { type: 'text', text: text.slice(cut) }, { type: 'end', stopReason: 'end' }]], { redact });
          const journal = memoryJournal();
          const handle = createEngine({ adapters: [model], journal, defaults: { model: MODEL } }).run(agentOnce, null);
          const deltas = deltasOf(handle);
          completed(await handle.result);
          const shown = joined(deltas, 0).text;
          const [entry] = turnsOf(await journal.load(handle.runId));
          expect(shown).toBe(entry?.response.text);
          expect(shown).toBe(clean);
          // Not one piece of the key in any one delta either, nor at the seam of two.
          for (const d of deltas) if (d.delta.type === 'text') expect(d.delta.text).not.toMatch(/0123|cdefX|live-0|XYZ/);
        }
      });

      h.it(`a ${kind} redact holds back exactly ${hold} characters of a streamed text`, async () => {
        const model = planned([[{ type: 'text', text: 'x'.repeat(400) }, { type: 'text', text: 'y' }, { type: 'end', stopReason: 'end' }]], { redact });
        const handle = createEngine({ adapters: [model], defaults: { model: MODEL } }).run(agentOnce, null);
        const deltas = deltasOf(handle);
        completed(await handle.result);
        const texts = deltas.flatMap((d) => (d.delta.type === 'text' ? [d.delta.text] : []));
        expect(texts[0]).toBe('x'.repeat(400 - hold));
        expect(texts.join('')).toBe(`${'x'.repeat(400)}y`);
      });
    }

    h.it('a secret split across tool-call input deltas is scrubbed from the events and the journaled input', async () => {
      const json = JSON.stringify({ token: KEY, q: 'x' });
      const model = planned([
        [
          { type: 'tool_call', index: 0, id: 'c1', name: 'lookup' },
          { type: 'tool_call', index: 0, inputDelta: json.slice(0, 16) },
          { type: 'tool_call', index: 0, inputDelta: json.slice(16) },
          { type: 'end', stopReason: 'tool_calls' },
        ],
        [{ type: 'text', text: 'ok' }, { type: 'end', stopReason: 'end' }],
      ], { redact: secretRedactor([KEY]) });
      const journal = memoryJournal();
      const handle = createEngine({ adapters: [model], journal, defaults: { model: MODEL } }).run(agentOnce, null);
      const deltas = deltasOf(handle);
      completed(await handle.result);
      const [entry] = turnsOf(await journal.load(handle.runId));
      expect(entry?.response.toolCalls).toEqual([{ id: 'c1', name: 'lookup', input: { token: '[redacted]', q: 'x' } }]);
      expect(joined(deltas, 0).toolCalls).toEqual(entry?.response.toolCalls);
      expect(JSON.stringify(deltas)).not.toContain('0123456789');
    });
  });
}
