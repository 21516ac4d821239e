/**
 * The fleet under chaos (issue 26): four worker processes on one Postgres table each start 25
 * runs (a lookup, then pay, which needs approval, then a final answer) and run engine.work();
 * a fifth process drains engine.pending() every 200 ms, allowing runs 0 mod 3, denying 1 mod 3
 * and leaving 2 mod 3 to their deadline; for the first 20 s a random worker is SIGKILLed every
 * 1 to 2 s and started again. Every process logs each effect (model request, tool run) with
 * its pid and the time it started and ended (fixtures/fleet-chaos-child.ts). Then:
 * - every run completed, with its own final answer;
 * - each approval has exactly one resolution, the intended one (allow, deny, deny by timeout);
 * - pay ran for every allowed run and no other, repeated only with the first run's key and
 *   only after a process that ran it was killed; the same for every model turn and lookup;
 * - no two processes acted on one run at once: an effect of one process starts only after
 *   every earlier effect of another on that run ended (or that process was killed).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { bundleFixtures, startChild, type Bundles, type Child } from './journal-children.js';
import { freshTable, openPool, sharedPostgresUrl, withSharedServer } from './postgres-shared.js';

const WORKERS = 4;
const RUNS = 25;
const LEASE_MS = 2_000;
const DEADLINE_MS = 8_000;
const CHAOS_MS = 20_000;

withSharedServer();

let bundles: Bundles;
let dir: string;
beforeAll(async () => {
  bundles = await bundleFixtures(['fleet-chaos-child'], { external: ['pg-native'], requires: true });
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-fleet-chaos-'));
});
afterAll(async () => {
  await bundles.remove();
  await rm(dir, { recursive: true, force: true });
});

interface Effect {
  readonly pid: number;
  readonly kind: string;
  readonly runId: string;
  /** The turn (model) or the idempotency key (tools). */
  readonly detail: string;
  readonly start: number;
  end?: number;
}

const intended = (runId: string) => (['allow', 'deny', 'timeout'] as const)[Number(runId.split('-').at(-1)) % 3]!;

/** The effects in the log, each start paired with its process's end line. */
function effectsOf(log: string): Effect[] {
  const effects: Effect[] = [];
  const open = new Map<string, Effect>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const [at = '', pid = '', edge = '', kind = '', runId = '', detail = ''] = line.split(' ');
    if (edge !== 'start' && edge !== 'end') continue;
    const id = `${pid} ${kind} ${runId} ${detail}`;
    if (edge === 'start') {
      const effect: Effect = { pid: Number(pid), kind, runId, detail, start: Number(at) };
      effects.push(effect);
      open.set(id, effect);
    } else {
      const effect = open.get(id);
      if (effect !== undefined) effect.end = Number(at);
      open.delete(id);
    }
  }
  return effects;
}

describe('a fleet of four workers and an approver on one Postgres, workers killed at random', () => {
  it(`${WORKERS} × ${RUNS} runs all complete; one resolution each, as intended; effects once but for a kill; never two processes on one run`, async () => {
    // The URL (with its password) reaches the children through their environment, never their argv.
    process.env['RULVAR_FLEET_PG_URL'] = await sharedPostgresUrl();
    const table = freshTable();
    const log = path.join(dir, 'effects.log');
    const script = bundles.path('fleet-chaos-child');
    const startWorker = (w: number, fresh: 'fresh' | 'again') => startChild(script, ['worker', table, log, `w${w}`, fresh, String(RUNS), String(LEASE_MS), String(DEADLINE_MS)]);
    const workers: Child[] = [];
    const everyone: Child[] = [];
    /** When each killed process was seen dead. */
    const killedAt = new Map<number, number>();
    const runIds = Array.from({ length: WORKERS }, (_, w) => Array.from({ length: RUNS }, (_, i) => `w${w}-${i}`)).flat();
    const store = postgresJournal({ pool: await openPool(), table });
    try {
      const approver = startChild(script, ['approver', table, log]);
      everyone.push(approver);
      for (let w = 0; w < WORKERS; w += 1) workers.push(startWorker(w, 'fresh'));
      everyone.push(...workers);
      await Promise.all([approver, ...workers].map((child) => child.line((l) => l === 'ready')));

      const chaosStarted = Date.now();
      while (Date.now() - chaosStarted < CHAOS_MS) {
        await sleep(1_000 + Math.random() * 1_000);
        const w = Math.floor(Math.random() * WORKERS);
        const victim = workers[w]!;
        await victim.kill();
        killedAt.set(victim.pid, Date.now());
        workers[w] = startWorker(w, 'again');
        everyone.push(workers[w]!);
      }

      const finished = async () => (await Promise.all(runIds.map(async (id) => (await store.load(id)).some((e) => e.type === 'run:end')))).filter(Boolean).length;
      const deadline = Date.now() + 30_000;
      let done = await finished();
      while (done < runIds.length && Date.now() < deadline) {
        await sleep(500);
        done = await finished();
      }
      expect(done).toBe(runIds.length);
    } finally {
      await Promise.all(everyone.map((child) => child.kill()));
    }

    // Every run completed with its own answer; one approval, one resolution, as intended.
    for (const runId of runIds) {
      const entries = await store.load(runId);
      const of = <T extends JournalEntry['type']>(type: T) => entries.filter((e): e is Extract<JournalEntry, { type: T }> => e.type === type);
      const [approval, ...moreApprovals] = of('approval');
      const resolutions = of('resolution');
      const want = intended(runId);
      expect({ runId, end: of('run:end').map((e) => e.value), approvals: moreApprovals.length + (approval === undefined ? 0 : 1), resolutions: resolutions.map((r) => [r.key === approval?.key, r.decision, r.by]) }).toEqual({
        runId,
        end: [`finished ${runId}`],
        approvals: 1,
        resolutions: [[true, want === 'allow' ? 'allow' : 'deny', want === 'timeout' ? 'timeout' : 'external']],
      });
    }

    const effects = effectsOf(log);
    const killedBefore = (pid: number, at: number) => (killedAt.get(pid) ?? -Infinity) >= at;
    // Each effect (a model turn, a lookup, a pay) once, but for one in flight at a kill: every
    // earlier attempt is from a process killed after it started, each such process once.
    const groups = new Map<string, Effect[]>();
    for (const e of effects) {
      const key = e.kind === 'model' ? `model ${e.runId} ${e.detail}` : `${e.kind} ${e.runId}`;
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    let repeats = 0;
    for (const [key, attempts] of groups) {
      const earlier = attempts.slice(0, -1);
      repeats += earlier.length;
      expect({ key, fromKilled: earlier.every((e) => killedBefore(e.pid, e.start)), distinct: new Set(earlier.map((e) => e.pid)).size === earlier.length }).toEqual({ key, fromKilled: true, distinct: true });
      // A tool repeated runs with the first attempt's idempotency key.
      if (key.startsWith('pay') || key.startsWith('lookup')) expect(new Set(attempts.map((e) => e.detail)).size).toBe(1);
    }
    expect(repeats).toBeLessThanOrEqual(killedAt.size * RUNS);
    for (const runId of runIds) {
      expect({ runId, pays: groups.has(`pay ${runId}`) }).toEqual({ runId, pays: intended(runId) === 'allow' });
      expect({ runId, turns: [0, 1, 2].map((t) => groups.has(`model ${runId} ${t}`)) }).toEqual({ runId, turns: [true, true, true] });
    }

    // Never two processes on one run at once.
    const byRun = new Map<string, Effect[]>();
    for (const e of effects) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
    for (const [runId, list] of byRun) {
      for (const later of list) {
        for (const earlier of list) {
          if (earlier.pid === later.pid || earlier.start > later.start) continue;
          const over = earlier.end ?? killedAt.get(earlier.pid) ?? Infinity;
          expect({ runId, earlier: `${earlier.pid} ${earlier.kind} ${earlier.start}`, later: `${later.pid} ${later.kind} ${later.start}`, overlap: over > later.start }).toMatchObject({ overlap: false });
        }
      }
    }
    // The chaos happened: processes were killed, and some of them mid-effect.
    expect(killedAt.size).toBeGreaterThanOrEqual(10);
    const inFlight = effects.filter((e) => e.end === undefined).length;
    console.info(`fleet chaos: ${killedAt.size} kills, ${inFlight} effects cut by a kill, ${repeats} repeated (each after a kill), ${effects.length} effects in all`);
  }, 120_000);
});
