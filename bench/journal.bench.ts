/**
 * The file journal's two costs, with memoryJournal as the floor in the same run:
 *   append   single appends as the engine makes them at a turn boundary (a model turn with a
 *            tool call, then that call's result; about 0.6 KB and 1 KB of JSON), timed one by
 *            one, interleaved between the stores: median and p99. fileJournal's figure is
 *            mostly its fsync; a third variant, printed only, skips the fsync (through the
 *            test seam, from the sources) to show what the lock protocol costs on its own.
 *   resume   a finished 1,000-turn run's journal, minus its end, resumed to the end by a new
 *            engine over a new store: fileJournal reads and parses the file, replays, and
 *            appends the end (one fsync); memoryJournal only replays.
 * No targets: the floor is in-memory, and the ratio says what durability costs on this disk.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { createFileJournal } from '../src/node/file-journal.js';
import { nodeJournalFs, type JournalFs } from '../src/node/journal-fs.js';
import { benchJournalFloor, journalDir } from './journal-floor.bench.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { library } from './library.js';
import { measured, type Row } from './report.js';

type JournalStore = import('../src/node/index.js').JournalStore;
type JournalEntry = import('../src/node/index.js').JournalEntry;

const TURNS = 1_000;
const RUN = 'bench';
/** Appends timed per harness iteration (and per warmup round), per store. */
const APPENDS_PER_ROUND = 20;
const NOTE = 'none (fsync-bound)';

/** Turn n asks for record n with a sentence of reasoning; the last turn answers. */
const adapter = {
  id: 'bench',
  async generate(request: { readonly messages: readonly unknown[] }) {
    const n = (request.messages.length - 1) / 2;
    if (n >= TURNS - 1) return { text: 'All records checked.', toolCalls: [], stopReason: 'end' as const };
    const text = `Record ${n} is next: I will look it up and compare its owner and status with the previous one before deciding what to do.`;
    return { text, toolCalls: [{ id: `call_${n}`, name: 'lookup', input: { id: `rec-${n}`, fields: ['status', 'owner', 'updatedAt', 'notes'] } }], stopReason: 'tool_calls' as const, usage: { inputTokens: 900 + n, outputTokens: 48 } };
  },
};

const lookup = library.tool({
  name: 'lookup',
  description: 'Looks a record up.',
  parameters: { type: 'object', properties: { id: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } }, required: ['id'] },
  execute: async ({ id }: { id: string }) => ({ id, status: 'open', owner: 'team-billing', updatedAt: '2025-01-01T00:00:00.000Z', notes: 'Customer asked for a revised invoice; waiting on finance to confirm the amount. '.repeat(6) }),
});
const pay = library.tool({ name: 'pay', description: 'Pays.', parameters: { type: 'object' }, needsApproval: true, execute: async () => ({ paid: true }) });
/** 99 lookups, then a payment that waits for approval, then the answer: the suspended 100-turn run. */
const approving = {
  id: 'approving',
  async generate(request: { readonly messages: readonly unknown[] }) {
    const n = (request.messages.length - 1) / 2;
    if (n < SUSPENDED_TURNS - 1) return adapter.generate(request);
    if (n === SUSPENDED_TURNS - 1) return { text: 'Paying now.', toolCalls: [{ id: 'call_pay', name: 'pay', input: { amount: 5 } }], stopReason: 'tool_calls' as const };
    return { text: 'Paid, and every record checked.', toolCalls: [], stopReason: 'end' as const };
  },
};
const SUSPENDED_TURNS = 100;

/**
 * The suspended 100-turn run, resolved: its entries as a resume finds them, and the appends the
 * resume makes after (the released call's result, the model's answer, the ends), from a real run.
 */
async function suspendedRun(dir: string): Promise<{ suspended: JournalEntry[]; tail: JournalEntry[][] }> {
  const store = createFileJournal({ dir }, noFsync);
  const wf = library.defineWorkflow({ name: 'journal-floor-bench' }, async (ctx) => (await ctx.agent('check and pay', { tools: [lookup, pay], maxTurns: SUSPENDED_TURNS + 1 })).turns);
  const engine = library.createEngine({ adapters: [approving], journal: store, defaults: { model: 'approving:m' } });
  const started = await engine.run(wf, {}, { runId: 'suspended' }).result;
  if (started.status !== 'suspended') throw new Error(`journal bench: the approval run ${started.status}`);
  await engine.resolveExternal('suspended', started.approvals[0]!.key, 'allow');
  const resolved = (await store.load('suspended')).length;
  // The resume's appends as its engine batched them: the timed resume replays exactly those.
  const tail: JournalEntry[][] = [];
  const claim = store.claim?.bind(store);
  if (claim === undefined) throw new Error('journal bench: fileJournal has no claim');
  const resuming = library.createEngine({
    adapters: [approving],
    journal: {
      ...store,
      load: store.load.bind(store),
      append: store.append.bind(store),
      claim: async (runId, lease) => {
        const held = await claim(runId, lease);
        return { ...held, load: held.load.bind(held), renew: held.renew.bind(held), release: held.release.bind(held), append: (entries, length) => (tail.push([...entries]), held.append(entries, length)) };
      },
    },
    defaults: { model: 'approving:m' },
  });
  const done = await resuming.resume('suspended', wf).result;
  if (done.status !== 'completed') throw new Error(`journal bench: the approval run's resume ${done.status}`);
  const entries = await store.load('suspended');
  return { suspended: entries.slice(0, resolved), tail };
}

const workflow = library.defineWorkflow({ name: 'journal-bench' }, async (ctx) => (await ctx.agent('check every record', { tools: [lookup], maxTurns: TURNS })).turns);
const engineOver = (journal: JournalStore) => library.createEngine({ adapters: [adapter], journal, defaults: { model: 'bench:m' } });

/** The real file system with fsync skipped: the journal's own protocol, without the disk's flush. */
const noFsync: JournalFs = {
  ...nodeJournalFs,
  async openOrCreate(target, create) {
    const opened = await nodeJournalFs.openOrCreate(target, create);
    return { ...opened, file: { ...opened.file, sync: async () => undefined } };
  },
  syncDir: async () => undefined,
};

export async function benchJournal(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'rulvar-bench-journal-'));
  try {
    // One real run, on a file journal that skips fsync (it is setup, not timed): its file is the
    // resume fixture, its entries the appends' payloads.
    const built = path.join(root, 'built');
    const outcome = await engineOver(createFileJournal({ dir: built }, noFsync)).run(workflow, {}, { runId: RUN }).result;
    if (outcome.status !== 'completed') throw new Error(`journal bench run ${outcome.status}`);
    const recorded = await library.fileJournal({ dir: built }).load(RUN);
    const unfinished = recorded.filter((entry) => entry.type !== 'run:end');
    const text = await readFile(path.join(built, `${RUN}.jsonl`), 'utf8');
    // One line per append, and the end is the last append: drop its line.
    await writeFile(path.join(built, `${RUN}.jsonl`), text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
    const boundary = recorded.filter((entry) => entry.type === 'turn' || entry.type === 'tool');
    const appends = await benchAppends(root, boundary, options);
    const resumes = await benchResumes(root, path.join(built, `${RUN}.jsonl`), unfinished, options);
    const turn = boundary.find((entry) => entry.type === 'turn');
    const tool = boundary.find((entry) => entry.type === 'tool');
    if (turn === undefined || tool === undefined) throw new Error('journal bench: no turn or tool entry');
    const floor = await benchJournalFloor(options, { turn, tool, ...(await suspendedRun(path.join(root, 'suspended'))) });
    return [...appends, ...resumes, ...floor];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function benchAppends(root: string, payloads: readonly JournalEntry[], options: { warmup: number; iterations: number }): Promise<Row[]> {
  const stores = [
    { name: 'memoryJournal', store: library.memoryJournal() },
    { name: 'fileJournal', store: library.fileJournal({ dir: path.join(root, 'appends') }) },
    { name: 'fileJournal, fsync skipped', store: createFileJournal({ dir: path.join(root, 'appends-no-fsync') }, noFsync) },
  ];
  const samples = stores.map(() => [] as number[]);
  const rounds = (options.warmup + options.iterations) * APPENDS_PER_ROUND;
  for (let i = 0; i < rounds; i += 1) {
    const entry = payloads[i % payloads.length];
    if (entry === undefined) throw new Error('journal bench: no payloads');
    for (let k = 0; k < stores.length; k += 1) {
      const index = (i + k) % stores.length;
      const started = performance.now();
      await stores[index]?.store.append(RUN, [entry], i);
      const ms = performance.now() - started;
      if (i >= options.warmup * APPENDS_PER_ROUND) samples[index]?.push(ms);
    }
  }
  const stats = stores.map((s, i) => ({ name: s.name, ...quantiles(samples[i] ?? []) }));
  const width = Math.max(...stats.map((s) => s.name.length));
  process.stdout.write(`\njournal: single appends at a turn boundary (a model turn's entry, then its tool result's), ${samples[0]?.length ?? 0} per store, interleaved\n`);
  process.stdout.write(`  ${'store'.padEnd(width)}  ${'median ms'.padStart(9)}  ${'p99 ms'.padStart(9)}\n`);
  for (const s of stats) process.stdout.write(`  ${s.name.padEnd(width)}  ${s.median.toFixed(3).padStart(9)}  ${s.p99.toFixed(3).padStart(9)}\n`);
  const [floor, file] = stats;
  const row = (which: 'median' | 'p99') =>
    measured({
      name: `fileJournal: append (${which})`,
      comparison: `\`fileJournal\` append at a turn boundary, ${which}, vs \`memoryJournal\``,
      floorLabel: 'memoryJournal',
      floor: floor?.[which] ?? NaN,
      values: [file?.[which] ?? NaN],
      note: NOTE,
    });
  return [row('median'), row('p99')];
}

async function benchResumes(root: string, builtFile: string, unfinished: readonly JournalEntry[], options: { warmup: number; iterations: number }): Promise<Row[]> {
  let memory: JournalStore = library.memoryJournal();
  let dir = '';
  let sample = 0;
  const resume = async (journal: JournalStore) => {
    const outcome = await engineOver(journal).resume(RUN, workflow).result;
    if (outcome.status !== 'completed') throw new Error(`journal bench resume ${outcome.status}`);
  };
  const variants: Variant[] = [
    {
      name: 'memoryJournal: resume',
      setup: async () => {
        memory = library.memoryJournal();
        await memory.append(RUN, [...unfinished], 0);
      },
      run: () => resume(memory),
    },
    {
      name: 'fileJournal: resume',
      setup: async () => {
        dir = await journalDir(path.join(root, `resume-${(sample += 1)}`));
        await copyFile(builtFile, path.join(dir, `${RUN}.jsonl`));
      },
      run: () => resume(library.fileJournal({ dir })),
    },
  ];
  const stats = await compare(variants, options);
  printTable(`journal: resuming a ${TURNS}-turn run to its end (a new engine and store each time)`, stats, variants[0]?.name ?? '');
  return [
    measured({
      name: 'fileJournal: resume',
      comparison: `resume of a ${TURNS.toLocaleString('en-US')}-turn run on \`fileJournal\`, vs \`memoryJournal\``,
      floorLabel: 'memoryJournal',
      floor: median(stats, variants[0]?.name ?? ''),
      values: [median(stats, variants[1]?.name ?? '')],
      note: NOTE,
    }),
  ];
}

function quantiles(samples: readonly number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}
