/**
 * Two real engines on one run, in two processes over one fileJournal (issue 24 item 2, issue
 * 25): resolving and resuming one suspended run at one instant, the approved effect happens
 * once and each model turn is paid once, the loser settling `run.claimed` (or
 * `journal.conflict`) with no effect; a SIGKILLed holder's run is taken over by another
 * process at once (fileJournal's lease checks its holder's pid); a SIGSTOPped holder resumed
 * past its lease performs no effect and settles `run.lease_lost`; a new run reusing a deleted
 * journal's run id gets new idempotency keys. These run on fileJournal's own lease (its run
 * lock); test/core/engine-leases.suite.ts holds the entry lease, which a dead holder keeps
 * until it expires, to the same contract.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fileJournal } from '../../src/node/index.js';
import { bundleFixtures, startChild, type Bundles } from './journal-children.js';

const RACES = 20;

let bundles: Bundles;
beforeAll(async () => {
  bundles = await bundleFixtures(['engine-lease-child']);
});
afterAll(() => bundles.remove());

let dir: string;
let log: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-engines-'));
  log = path.join(dir, 'calls.log');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const child = (...args: string[]) => startChild(bundles.path('engine-lease-child'), args);
/** The log's lines as `[tag, what]`, with the idempotency key cut off. */
const lines = () =>
  (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : []).map((l) => {
    const [tag = '', what = '', n = ''] = l.split(' ');
    return [tag, what === 'model' || what === 'pay' ? `${what} ${n}` : what] as const;
  });
const keysOf = (what: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l.split(' ')[1] === what).map((l) => l.split(' ').at(-1)) : []);
type Outcome = { status: string; code?: string; value?: unknown };

describe('two engines on one run, in two processes', () => {
  it(`resolve and resume one suspended run at one instant, ${RACES} times: the effect once, each turn paid once, the loser does nothing`, async () => {
    const losers = new Map<string, number>();
    for (let race = 0; race < RACES; race += 1) {
      const runId = `race-${race}`;
      const started = await child('start', dir, runId, log, 's').result<{ status: string; keys: string[] }>();
      expect(started.status).toBe('suspended');
      const key = started.keys[0]!;
      const racers = [child('race', dir, runId, log, 'a', key, 'allow'), child('race', dir, runId, log, 'b', key, race % 2 === 0 ? 'allow' : 'deny')];
      await Promise.all(racers.map((r) => r.line((l) => l === 'ready')));
      for (const r of racers) r.send('go');
      const [a, b] = await Promise.all(racers.map((r) => r.result<{ resolved: boolean; outcome: Outcome }>()));
      const resolutions = (await fileJournal({ dir }).load(runId)).filter((e) => e.type === 'resolution');
      expect(resolutions).toHaveLength(1);
      const allowed = resolutions[0]?.type === 'resolution' && resolutions[0].decision === 'allow';
      const mine = lines().filter(([, what]) => what !== 'model 0');
      const runs = (tag: string) => mine.filter(([t]) => t === tag).map(([, what]) => what);
      // One process paid the last turn and ran the approved call (if allowed); the other nothing.
      const [winner, loser] = runs('a').length > 0 ? [a!, b!] : [b!, a!];
      expect([...runs('a'), ...runs('b')].sort()).toEqual(allowed ? ['model 1', 'pay 5'] : ['model 1']);
      expect(runs('a').length === 0 || runs('b').length === 0).toBe(true);
      expect(winner.outcome).toEqual({ status: 'completed', value: 'paid' });
      const how = loser.outcome.status === 'failed' ? loser.outcome.code! : loser.outcome.status;
      expect(['run.claimed', 'journal.conflict', 'completed']).toContain(how);
      losers.set(how, (losers.get(how) ?? 0) + 1);
      // Every run writes the journal's promise out in full.
      const types = (await fileJournal({ dir }).load(runId)).filter((e) => e.type !== 'lease').map((e) => e.type);
      expect(types).toEqual(['run:start', 'spawn', 'turn', 'approval', 'resolution', 'tool', 'turn', 'agent:end', 'run:end']);
      await rm(log, { force: true });
    }
    console.log(`two processes racing on one run: the loser settled ${JSON.stringify(Object.fromEntries(losers))} in ${RACES} races`);
    expect(losers.get('run.claimed') ?? 0).toBeGreaterThan(0);
  }, 240_000);

  it("a SIGKILLed holder's run is taken over by another process at once, running only the killed call again", async () => {
    // fileJournal's lease is its run lock, whose holder's pid is checked: a dead holder's lease
    // ends when it dies, not leaseMs later (a stalled one's only after leaseMs: the next case).
    const LEASE_MS = 30_000;
    const holder = child('work', dir, 'killed', log, 'a', String(LEASE_MS), '60000');
    await holder.line((l) => l === 'in slow');
    expect(await holder.kill()).toBe('SIGKILL');
    const killedAt = Date.now();
    const next = await child('work', dir, 'killed', log, 'b', String(LEASE_MS), '0').result<Outcome>();
    expect(next).toEqual({ status: 'completed', value: 'done' });
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS / 2);
    // The killed call ran again (the crash window: at most that one call), under the same key.
    expect(lines()).toEqual([['a', 'model 0'], ['a', 'slow'], ['b', 'slow'], ['b', 'charge'], ['b', 'model 1']]);
    const [first, again] = keysOf('slow');
    expect(again).toBe(first);
  }, 60_000);

  it('a SIGSTOPped holder resumed past its lease performs no effect and settles run.lease_lost', async () => {
    const LEASE_MS = 1_000;
    const holder = child('work', dir, 'stopped', log, 'a', String(LEASE_MS), '2500');
    await holder.line((l) => l === 'in slow');
    process.kill(holder.pid, 'SIGSTOP');
    try {
      await sleep(LEASE_MS + 300);
      const other = await child('work', dir, 'stopped', log, 'b', String(LEASE_MS), '0').result<Outcome>();
      expect(other).toEqual({ status: 'completed', value: 'done' });
    } finally {
      process.kill(holder.pid, 'SIGCONT');
    }
    expect(await holder.result<Outcome>()).toEqual({ status: 'failed', code: 'run.lease_lost' });
    // The stopped one's slow call was under way when it stopped; after it nothing of it ran.
    expect(lines()).toEqual([['a', 'model 0'], ['a', 'slow'], ['b', 'slow'], ['b', 'charge'], ['b', 'model 1']]);
    expect((await fileJournal({ dir }).load('stopped')).filter((e) => e.type === 'tool')).toHaveLength(2);
  }, 60_000);

  it('a new run reusing a deleted journal\'s run id gets new idempotency keys', async () => {
    expect(await child('work', dir, 'reused', log, 'a', '30000', '0').result<Outcome>()).toEqual({ status: 'completed', value: 'done' });
    await rm(path.join(dir, 'reused.jsonl'));
    expect(await child('work', dir, 'reused', log, 'b', '30000', '0').result<Outcome>()).toEqual({ status: 'completed', value: 'done' });
    const keys = [...keysOf('slow'), ...keysOf('charge')];
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(4);
  }, 60_000);
});
