/**
 * The crash loop: a 5-turn workflow on fileJournal (a step, then an agent whose turns 0-3 each
 * call a tool with a side effect), SIGKILLed at a seeded random point, once or twice, then
 * resumed by a fresh process until it completes. The seed picks the point as a count of
 * journal lines, and the child is killed as soon as its file has that many: a point in the
 * run's progress, not a moment on a clock (a loaded machine stretched the time before a run's
 * first append so far that kills timed from the child's start landed before run:start or
 * after run:end, and none mid-run). Between the line seen and the kill the child goes on, so
 * kills also fall between a request or a side effect and its journal entry. Each iteration must end with the value of an
 * uninterrupted run and keep the journal's promise (crash-loop-ledger.ts): nothing journaled
 * is paid for again; a model request or side effect is repeated only when the kill fell
 * between it and its journal entry. The counts of those, and of the kills' other effects, are
 * printed; the assertions hold whatever moment a kill lands on, so timing cannot flake them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileJournal } from '../../src/node/index.js';
import { account, snapshotOf, type Process } from './crash-loop-ledger.js';
import { bundleFixtures, startChild, type Bundles } from './journal-children.js';

/** 50 seeds; the Node 22/24 passes of scripts/node-matrix.sh run the first 16 (RULVAR_CRASH_LOOP_ITERATIONS). */
const ITERATIONS = Number(process.env['RULVAR_CRASH_LOOP_ITERATIONS'] ?? 50);
/** Iterations run side by side: the CI box has 2 cores, and a child mostly waits on fsync. */
const CONCURRENCY = 2;
const RUN_ID = 'crash-loop';

/** A small seeded PRNG (mulberry32): an iteration's kill moments follow from its number. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

let bundles: Bundles;
let expected: unknown;
/** How long an uninterrupted child runs after saying `ready` (printed). */
let runMs = 0;
/** The lines of an uninterrupted run's journal file: the points a kill is picked among. */
let runLines = 0;

beforeAll(async () => {
  bundles = await bundleFixtures(['crash-loop-child']);
  ({ ms: runMs, lines: runLines } = await cleanRun());
}, 90_000);
afterAll(() => bundles.remove());

const linesIn = (file: string): number => {
  if (!existsSync(file)) return 0;
  let lines = 0;
  for (const byte of readFileSync(file)) if (byte === 0x0a) lines += 1;
  return lines;
};

/** One uninterrupted run: checks it and keeps its value as `expected`; its length after `ready`, and its journal's lines. */
async function cleanRun(): Promise<{ ms: number; lines: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-crash-'));
  try {
    const child = startChild(bundles.path('crash-loop-child'), [dir, RUN_ID, 'clean', path.join(dir, 'requests'), path.join(dir, 'effects')]);
    await child.line((l) => l === 'ready');
    const started = performance.now();
    expected = await child.result();
    const ms = performance.now() - started;
    expect(expected).toMatchObject({ status: 'completed' });
    expect(readFileSync(path.join(dir, 'requests'), 'utf8')).toBe('clean 0\nclean 1\nclean 2\nclean 3\nclean 4\n');
    expect(readFileSync(path.join(dir, 'effects'), 'utf8').split('\n')).toHaveLength(5);
    const lines = linesIn(path.join(dir, `${RUN_ID}.jsonl`));
    expect(lines).toBeGreaterThan(10);
    return { ms, lines };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Tally {
  kills: number;
  beforeStart: number;
  midRun: number;
  afterEnd: number;
  staleLocks: number;
  tornTails: number;
  repeatedRequests: number;
  repeatedEffects: number;
}

async function iteration(seed: number, tally: Tally): Promise<void> {
  const random = mulberry32(0x5eed + seed);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-crash-'));
  const [requests, effects] = [path.join(dir, 'requests'), path.join(dir, 'effects')];
  const file = path.join(dir, `${RUN_ID}.jsonl`);
  const load = async () => snapshotOf(await fileJournal({ dir }).load(RUN_ID));
  const processes: Process[] = [];
  try {
    const kills = random() < 0.3 ? 2 : 1;
    let outcome: unknown;
    for (let k = 0; outcome === undefined; k += 1) {
      const tag = `p${k}`;
      const before = await load();
      const child = startChild(bundles.path('crash-loop-child'), [dir, RUN_ID, tag, requests, effects]);
      let killed = false;
      if (k < kills) {
        await child.line((l) => l === 'ready');
        // A count of lines from what the file holds now to one short of a whole run's.
        const held = linesIn(file);
        const target = held + Math.floor(random() * Math.max(1, runLines - held));
        let exited = false;
        void child.exited.then(() => (exited = true));
        while (!exited && linesIn(file) < target) await sleep(1);
        killed = (await child.kill()) === 'SIGKILL';
        tally.kills += Number(killed);
        if (existsSync(`${file}.lock`)) tally.staleLocks += 1;
        if (existsSync(file) && !readFileSync(file, 'utf8').endsWith('\n') && readFileSync(file).byteLength > 0) tally.tornTails += 1;
      }
      if (!killed) outcome = await child.result();
      const after = await load();
      if (killed) {
        if (after.entries === 0) tally.beforeStart += 1;
        else if (after.ended) tally.afterEnd += 1;
        else tally.midRun += 1;
      }
      processes.push({ tag, killed, before, after });
      if (k > kills + 2) throw new Error(`seed ${seed}: no completed outcome after ${k + 1} processes`);
    }
    expect(outcome, `seed ${seed}`).toEqual(expected);
    const final = processes.at(-1)!.after;
    expect([final.turns.size, final.calls.size, final.ended], `seed ${seed}`).toEqual([5, 4, true]);
    const repeats = account(processes, requests, effects);
    tally.repeatedRequests += repeats.requests;
    tally.repeatedEffects += repeats.effects;
  } catch (error) {
    throw new Error(`crash loop seed ${seed}: ${(error as Error).message}`, { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it(`survives ${ITERATIONS} seeded SIGKILLs of a 5-turn run: same value, nothing journaled paid twice`, async () => {
  const started = performance.now();
  const tally: Tally = { kills: 0, beforeStart: 0, midRun: 0, afterEnd: 0, staleLocks: 0, tornTails: 0, repeatedRequests: 0, repeatedEffects: 0 };
  let next = 0;
  const worker = async () => {
    for (let seed = next++; seed < ITERATIONS; seed = next++) await iteration(seed, tally);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `crash loop: ${ITERATIONS} iterations, ${tally.kills} kills (${tally.beforeStart} before run:start, ${tally.midRun} mid-run, ${tally.afterEnd} after run:end); ` +
      `repeated inside the window: ${tally.repeatedRequests} model requests, ${tally.repeatedEffects} side effects; ` +
      `${tally.staleLocks} stale locks broken, ${tally.tornTails} torn tails; uninterrupted run ${runMs.toFixed(0)} ms, ${runLines} lines; ${seconds} s`,
  );
  expect(tally.midRun).toBeGreaterThan(ITERATIONS / 4);
}, 180_000);
