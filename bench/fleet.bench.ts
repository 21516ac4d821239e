/**
 * A fleet's throughput on loopback PostgreSQL (issue 26): 1,000 runs at once across 4 workers,
 * each an engine with a pool of its own over one postgresJournal table, each starting a
 * quarter of the runs. A run is 3 model turns of an instant scripted model (a lookup, a second
 * lookup, the answer), so what is timed is the journal: its claims, appends and wake-ups.
 * Printed twice: with every worker also running engine.work() (what a fleet runs: every append
 * wakes the other workers, which look the run up and find it held), and with engines alone.
 * Times and appends per second are printed; no target is set. Needs a server, as
 * postgres.bench.ts (RULVAR_TEST_POSTGRES_URL, or a throwaway one with fsync on).
 */
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createEngine, defineWorkflow, tool, type JournalLease, type JournalStore } from '../src/node/index.js';
import { postgresJournal } from '../src/postgres/index.js';
import { scripted } from '../src/testing/index.js';
import { serverUrl } from './postgres.bench.js';

const WORKERS = 4;
/** A thousand runs queue for each pool's clients: the store's bound covers that wait too. */
const TIMEOUT_MS = 60_000;

/** The store with every append counted, through a lease or not. */
function counted(store: JournalStore, count: { appends: number }): JournalStore {
  const countLease = (lease: JournalLease): JournalLease => ({
    runId: lease.runId,
    holder: lease.holder,
    load: () => lease.load(),
    append: (entries, n) => ((count.appends += 1), lease.append(entries, n)),
    renew: () => lease.renew(),
    release: () => lease.release(),
  });
  return {
    load: (id) => store.load(id),
    append: (id, entries, n) => ((count.appends += 1), store.append(id, entries, n)),
    claim: async (id, request) => countLease(await store.claim!(id, request)),
    runs: () => store.runs!(),
    watch: (wake, signal) => store.watch!(wake, signal),
  };
}

async function fleetRound(url: string, runs: number, withWork: boolean): Promise<{ seconds: number; appends: number; completed: number }> {
  const table = `bench_fleet_${process.pid}_${withWork ? 'work' : 'plain'}`;
  const pools = Array.from({ length: WORKERS }, () => new pg.Pool({ connectionString: url, max: 8 }));
  // An idle client's lost connection is reported here; the next query of it fails typed.
  for (const pool of pools) pool.on('error', () => undefined);
  const count = { appends: 0 };
  const stop = new AbortController();
  try {
    const lookup = tool({ name: 'lookup', description: 'Looks a record up.', parameters: { type: 'object' }, execute: () => ({ status: 'open' }) });
    const model = scripted([{ toolCalls: [{ name: 'lookup', input: { n: 1 } }] }, { toolCalls: [{ name: 'lookup', input: { n: 2 } }] }, 'done']);
    const workflow = defineWorkflow({ name: 'three-turns' }, async (ctx) => (await ctx.agent('look twice', { tools: [lookup] })).text);
    const engines = pools.map((pool) => createEngine({ adapters: [model], journal: counted(postgresJournal({ pool, table, timeoutMs: TIMEOUT_MS }), count), defaults: { model: 'scripted:m' } }));
    await postgresJournal({ pool: pools[0]!, table }).load('warm');
    const working = withWork ? engines.map((engine) => engine.work({ workflows: [workflow], signal: stop.signal })) : [];
    const started = performance.now();
    const outcomes = await Promise.all(Array.from({ length: runs }, (_, i) => engines[i % WORKERS]!.run(workflow, null, { runId: `run-${i}` }).result));
    const seconds = (performance.now() - started) / 1000;
    stop.abort();
    await Promise.all(working);
    await pools[0]!.query(`DROP TABLE IF EXISTS "${table}", "${table}_lease"`);
    const failed = outcomes.flatMap((o) => (o.status === 'failed' ? [o.error.code] : []));
    if (failed.length > 0) process.stdout.write(`  (failed: ${[...new Set(failed)].map((code) => `${failed.filter((c) => c === code).length} ${code}`).join(', ')})\n`);
    return { seconds, appends: count.appends, completed: outcomes.filter((o) => o.status === 'completed').length };
  } finally {
    stop.abort();
    await Promise.all(pools.map((pool) => pool.end()));
  }
}

export async function benchFleet(options: { runs: number }): Promise<void> {
  const found = await serverUrl();
  if (found === undefined) return;
  try {
    process.stdout.write(`\nfleet: ${options.runs} concurrent 3-turn runs across ${WORKERS} workers on loopback PostgreSQL${found.server === undefined ? '' : ' (fsync on)'} (printed, no target)\n`);
    for (const withWork of [true, false]) {
      const { seconds, appends, completed } = await fleetRound(found.url, options.runs, withWork);
      const label = withWork ? 'engines running work()' : 'engines alone';
      process.stdout.write(`  ${label.padEnd(24)}  ${seconds.toFixed(2).padStart(7)} s  ${(appends / seconds).toFixed(0).padStart(6)} appends/s  ${(completed / seconds).toFixed(0).padStart(5)} runs/s  (${appends} appends, ${completed}/${options.runs} completed)\n`);
    }
  } finally {
    await found.server?.stop();
  }
}
