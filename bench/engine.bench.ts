/**
 * Issue 10's two costs, in the same run:
 *   overhead  a 200-turn agent with one native tool call per turn, through the engine (spawn,
 *             journal appends, events, the loop) versus a hand-written loop that calls the
 *             same adapter and dispatchTool directly and keeps the same history
 *   resume    replaying that run's whole journal to its end (no model call, no tool run)
 *             versus running it
 * Beside the floor, a bound: the hand loop that also journals, in the cheapest form any
 * durable journal needs (each response and each result with its audit as JSON text, kept in
 * an array: no copy, no freeze, no index, no store). It shows how much of the engine's
 * distance to the hand loop is the journal itself, which the overhead target does not allow for.
 * Issue 28's: the same run with a tracer that records nothing (`@opentelemetry/api`'s tracer
 * with no provider registered, what a host that wires tracing but samples a run out pays) and
 * with one that records every span in memory (sdk-trace-base), against the untraced run.
 * Without a tracer the engine holds no RunTrace at all, and no built module imports the API
 * (test/node/dist.test.ts): the untraced run is the floor these two are printed against.
 * Each timed sample is a batch of BATCH runs: one run is well under a millisecond, too short
 * to time alone next to the collection the harness runs before each sample.
 */
import { compare, median, printTable, type Variant } from './harness.js';
import { library } from './library.js';
import { measured, printTargets, type Row } from './report.js';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

type Message = import('../src/node/index.js').Message;

const TURNS = 200;
const BATCH = 10;
const OVERHEAD_TARGET = 1.15;
const RESUME_TARGET = 0.1;

/** The same cheap adapter for every variant: turn n (from the history's length) calls the tool, the last one answers. */
const adapter = {
  id: 'bench',
  async generate(request: { readonly model: string; readonly messages: readonly unknown[]; readonly tools: readonly unknown[] }) {
    const n = (request.messages.length - 1) / 2;
    return n < TURNS - 1
      ? { text: '', toolCalls: [{ id: `c${n}`, name: 'bump', input: { by: 1 } }], stopReason: 'tool_calls' as const }
      : { text: 'done', toolCalls: [], stopReason: 'end' as const };
  },
};

export async function benchEngine(options: { warmup: number; iterations: number }): Promise<Row[]> {
  let counter = 0;
  const bump = library.tool({
    name: 'bump',
    description: 'Adds to a counter.',
    parameters: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] },
    execute: async ({ by }: { by: number }) => (counter += by),
  });
  const workflow = library.defineWorkflow({ name: 'bench' }, async (ctx) => (await ctx.agent('count', { tools: [bump], maxTurns: TURNS })).turns);
  const engineOptions = { adapters: [adapter], defaults: { model: 'bench:m' } };

  const handLoop = async () => {
    const toolset = await library.resolveToolset([bump]);
    const tools = toolset.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    const history: Message[] = [{ role: 'user', text: 'count' }];
    for (;;) {
      const response = await adapter.generate({ model: 'm', messages: history.slice(), tools });
      history.push({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
      if (response.toolCalls.length === 0) return;
      const results = [];
      for (const call of response.toolCalls) {
        const outcome = await library.dispatchTool(toolset, call, {});
        if (outcome.status === 'done') results.push(outcome.result);
      }
      history.push({ role: 'tool', results });
    }
  };
  const journaledLoop = async () => {
    const toolset = await library.resolveToolset([bump]);
    const tools = toolset.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    const history: Message[] = [{ role: 'user', text: 'count' }];
    const journal: string[] = [];
    for (let turn = 0; ; turn += 1) {
      const response = await adapter.generate({ model: 'm', messages: history.slice(), tools });
      journal.push(JSON.stringify({ type: 'turn', turn, response }));
      history.push({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
      if (response.toolCalls.length === 0) return;
      const results = [];
      for (const call of response.toolCalls) {
        const outcome = await library.dispatchTool(toolset, call, {});
        if (outcome.status !== 'done') continue;
        results.push(outcome.result);
        journal.push(JSON.stringify({ type: 'tool', turn, result: outcome.result, audit: outcome.audit }));
      }
      history.push({ role: 'tool', results });
    }
  };
  const viaEngine = async () => {
    const outcome = await library.createEngine(engineOptions).run(workflow, {}).result;
    if (outcome.status !== 'completed') throw new Error(`bench run ${outcome.status}`);
  };
  const noopTracer = trace.getTracer('rulvar-bench');
  const exporter = new InMemorySpanExporter();
  const recordingTracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('rulvar-bench');
  const viaTracedEngine = (tracer: typeof noopTracer) => async () => {
    const outcome = await library.createEngine({ ...engineOptions, tracer }).run(workflow, {}).result;
    if (outcome.status !== 'completed') throw new Error(`bench traced run ${outcome.status}`);
  };
  // One run's spans: the run, its agent, a chat span per turn and an execute_tool span per call.
  const spansPerRun = 2 + TURNS + (TURNS - 1);
  const batch = (once: () => Promise<void>) => async () => {
    for (let i = 0; i < BATCH; i += 1) await once();
  };

  // A finished run's journal minus its end entry: resume then replays the whole agent.
  let replayJournals: ReturnType<typeof library.memoryJournal>[] = [];
  const source = library.memoryJournal();
  const finished = library.createEngine({ ...engineOptions, journal: source }).run(workflow, {}, { runId: 'bench' });
  await finished.result;
  const recorded = (await source.load('bench')).filter((entry) => entry.type !== 'run:end');
  const replay: Variant = {
    name: 'rulvar: resume (replay of the whole journal)',
    setup: async () => {
      replayJournals = Array.from({ length: BATCH }, () => library.memoryJournal());
      for (const journal of replayJournals) await journal.append('bench', recorded, 0);
    },
    run: async () => {
      for (const journal of replayJournals) {
        const outcome = await library.createEngine({ ...engineOptions, journal }).resume('bench', workflow).result;
        if (outcome.status !== 'completed') throw new Error(`bench replay ${outcome.status}`);
      }
    },
  };
  const variants: Variant[] = [
    { name: 'floor: adapter + dispatchTool loop', run: batch(handLoop) },
    { name: 'bound: that loop + a JSON-text journal', run: batch(journaledLoop) },
    { name: 'rulvar: engine run', run: batch(viaEngine) },
    replay,
    { name: 'rulvar: engine run, a non-recording tracer', run: batch(viaTracedEngine(noopTracer)) },
    { name: 'rulvar: engine run, spans recorded in memory', setup: async () => exporter.reset(), run: batch(viaTracedEngine(recordingTracer)) },
  ];
  const stats = await compare(variants, options);
  if (exporter.getFinishedSpans().length !== BATCH * spansPerRun) throw new Error(`bench: ${exporter.getFinishedSpans().length} spans recorded, expected ${BATCH * spansPerRun}`);
  printTable(`engine: a ${TURNS}-turn agent, one native tool call per turn (${BATCH} runs per sample)`, stats, variants[0]?.name ?? '');
  const at = (i: number) => median(stats, variants[i]?.name ?? '');
  const traced = (name: string) => median(stats, name);
  const rows = [
    measured({
      name: 'rulvar: engine run',
      comparison: `engine overhead: a ${TURNS}-turn agent, one native tool call per turn, vs a hand-written adapter + \`dispatchTool\` loop`,
      floorLabel: 'hand loop',
      floor: at(0),
      values: [at(2)],
      target: OVERHEAD_TARGET,
    }),
    measured({
      name: 'bound: that loop + a JSON-text journal',
      comparison: 'the least a loop that journals can cost: the hand loop, keeping each response and each result with its audit as JSON text',
      floor: at(0),
      values: [at(1)],
      note: at(1) / at(0) > OVERHEAD_TARGET ? `(bound; already past ${OVERHEAD_TARGET}×)` : '(bound)',
    }),
    measured({
      name: 'rulvar: resume (replay of the whole journal)',
      comparison: 'resume: replaying that run\'s journal to its end, vs running it',
      floorLabel: 'engine run',
      floor: at(2),
      values: [at(3)],
      target: RESUME_TARGET,
    }),
    measured({
      name: 'rulvar: engine run, a non-recording tracer',
      comparison: `that engine run with a tracer that records nothing (\`@opentelemetry/api\` with no provider: ${spansPerRun} spans started and ended), vs the untraced run`,
      floorLabel: 'untraced run',
      floor: at(2),
      values: [traced('rulvar: engine run, a non-recording tracer')],
      note: '(printed: the issue sets no figure for a tracer given; absent, nothing of tracing runs)',
    }),
    measured({
      name: 'rulvar: engine run, spans recorded in memory',
      comparison: 'the same, every span recorded by sdk-trace-base (`SimpleSpanProcessor` into `InMemorySpanExporter`)',
      floor: at(2),
      values: [traced('rulvar: engine run, spans recorded in memory')],
      note: '(printed: the exporter\'s own cost)',
    }),
  ];
  printTargets(rows);
  return rows;
}
