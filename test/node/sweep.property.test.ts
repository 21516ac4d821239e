/**
 * Property tests of the tools/list sweep against a real in-process SDK server: random page
 * sizes, cursor sequences (absent or '' endings, echoes, cycles of any period, endless fresh
 * chains), delays, hung pages and bounds. Every run is judged by the reference model in
 * fixtures/sweep-model.ts: `tools()` resolves with exactly the declared names or rejects with
 * a RulvarError carrying a code the model allows, inside its time budget, without stray
 * rejections, and the source is closed afterwards.
 */
import { spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RulvarError, mcp } from '../../src/node/index.js';
import { within } from '../core/helpers.js';
import { tsServer } from './process-helpers.js';
import { behaviourArbitrary, behaviourServer, configFor, expectOutcome, type Behaviour } from './fixtures/sweep-model.js';

/** Date.now() in the sweep and performance.now() here may disagree by a millisecond each way. */
const CLOCK_MS = 2;
/** Past within(budget), how much longer a run may stay pending before it counts as hung. */
const WATCHDOG_MS = 1_000;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));

type Outcome = { readonly names: readonly string[] } | { readonly code: string; readonly message: string };

async function checkSweep(b: Behaviour): Promise<void> {
  const expected = expectOutcome(b);
  const { server, queried, closed } = behaviourServer(b);
  const source = mcp(configFor(b, server));
  let settled: PromiseSettledResult<{ name: string }[]>[];
  let elapsed: number;
  try {
    const started = performance.now();
    const sweeps = Promise.allSettled(Array.from({ length: b.callers }, () => source.tools()));
    settled = await watchdog(sweeps, within(expected.budgetMs) + WATCHDOG_MS);
    elapsed = performance.now() - started;
  } finally {
    await source.close();
  }
  expect(closed(), 'the server saw its connection closed').toBe(true);

  const outcomes = settled.map(outcomeOf);
  // Concurrent cold callers share one sweep, so they cannot disagree.
  for (const other of outcomes) expect(other).toEqual(outcomes[0]);
  const outcome = outcomes[0];
  if (outcome === undefined) throw new Error('no caller');
  if ('names' in outcome) {
    expect(expected.names, `resolved, but the model allows only ${[...expected.codes].join(', ')}`).toBeDefined();
    expect(outcome.names).toEqual(expected.names);
  } else {
    expect([...expected.codes], `rejected with ${outcome.code}: ${outcome.message}`).toContain(outcome.code);
  }
  if (expected.queried !== undefined) expect(queried).toEqual(expected.queried);

  const { discoveryMs, listMs } = b.bounds;
  // The model's budget already allows for its own stalls; within() adds the load on top.
  expect(elapsed).toBeLessThan(within(expected.budgetMs));
  if (discoveryMs !== undefined) expect(elapsed).toBeLessThan(within(discoveryMs));
  // A timeout refusal has really waited its bound out: no premature give-up either.
  if ('code' in outcome && outcome.code === 'discovery.deadline') {
    expect(elapsed).toBeGreaterThanOrEqual((discoveryMs ?? 0) - CLOCK_MS);
  }
  if ('code' in outcome && outcome.code === 'discovery.page_timeout') {
    expect(elapsed).toBeGreaterThanOrEqual((listMs ?? 0) - CLOCK_MS);
  }
}

/**
 * Fails a run that outlives its budget by far, so a sweep that never ends shows up as this
 * run's counterexample instead of stalling the whole property until the test times out.
 */
async function watchdog<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`tools() was still pending after ${Math.round(ms)} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function outcomeOf(result: PromiseSettledResult<{ name: string }[]>): Outcome {
  if (result.status === 'fulfilled') return { names: result.value.map((t) => t.name) };
  const error: unknown = result.reason;
  if (!RulvarError.is(error)) throw new Error(`tools() rejected with an untyped error: ${String(error)}`, { cause: error });
  return { code: error.code, message: error.message };
}

async function expectNoUnhandledRejection(): Promise<void> {
  // Rejections are reported after the microtask queue drains; give late ones a turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(unhandled).toEqual([]);
}

describe('tools/list sweep, random pagination', () => {
  it('without timers, every outcome and every wire call is exactly the model', async () => {
    await fc.assert(fc.asyncProperty(behaviourArbitrary({ timing: false }), checkSweep), {
      numRuns: 120,
      interruptAfterTimeLimit: 40_000,
      markInterruptAsFailure: true,
    });
    await expectNoUnhandledRejection();
  }, 60_000);

  it('with delays, hung pages and time bounds, outcomes stay inside the model and its budget', async () => {
    await fc.assert(fc.asyncProperty(behaviourArbitrary({ timing: true }), checkSweep), {
      numRuns: 150,
      interruptAfterTimeLimit: 50_000,
      markInterruptAsFailure: true,
    });
    await expectNoUnhandledRejection();
  }, 70_000);

  it('a process running random bounded sweeps exits on its own: no timer or handle left', async () => {
    const script = fileURLToPath(new URL('./fixtures/random-sweeps.ts', import.meta.url));
    const { command, args } = tsServer(script);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`random-sweeps.ts did not exit within 20 s; it printed: ${out}`));
      }, 20_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code, out).toBe(0);
    const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { sweeps?: number; timeouts?: number; mismatches?: unknown[] };
    expect(summary.mismatches).toEqual([]);
    expect(summary.sweeps).toBe(50);
    // The point is to leave timers armed by timed-out pages behind, so some must have timed out.
    expect(summary.timeouts).toBeGreaterThan(0);
  }, 30_000);
});
