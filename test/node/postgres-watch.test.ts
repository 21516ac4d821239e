/**
 * postgresJournal's watch over real LISTEN/NOTIFY: wake-ups for appends and releases from
 * other pools, leases that expire (found by its sweep, on the database's clock), a listening
 * connection the server kills (made again, with every run woken for what it missed), and the
 * client released whenever the signal aborts, also while it is still being connected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalStore } from '../../src/core/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { SWEEP_MS } from '../../src/postgres/watch.js';
import { sleep, step, until } from './postgres-contract.js';
import { startProxy } from './postgres-proxy.js';
import { freshTable, openPool, withSharedServer, sharedPostgresUrl } from './postgres-shared.js';

withSharedServer();

interface Watching {
  readonly woken: string[];
  readonly stop: AbortController;
  /** Resolves with the time (performance.now) `runId` is next woken; rejects after `ms` (10 s). */
  next(runId: string, ms?: number): Promise<number>;
}

const watches: AbortController[] = [];
afterEach(() => {
  for (const stop of watches.splice(0)) stop.abort();
});

function watching(store: JournalStore): Watching {
  const woken: string[] = [];
  const waiters: [string, (at: number) => void][] = [];
  const stop = new AbortController();
  watches.push(stop);
  store.watch!((runId) => {
    woken.push(runId);
    for (const waiter of waiters.splice(0)) {
      if (waiter[0] === runId) waiter[1](performance.now());
      else waiters.push(waiter);
    }
  }, stop.signal);
  const next = (runId: string, ms = 10_000) =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no wake for ${runId} within ${ms} ms`)), ms);
      waiters.push([runId, (at) => (clearTimeout(timer), resolve(at))]);
    });
  return { woken, stop, next };
}

/**
 * The backends of watches on `table` that listen, by pid: pg_listening_channels() is per
 * session, so they are known by their last statement, a finished LISTEN or a sweep (which only
 * a watch client runs, once it listens). A watch's first connection also reads the clock
 * between the two, a statement naming no table: until its first sweep it is not seen, so a
 * test takes the pid from the check that saw it rather than asking again.
 */
async function listeners(table: string): Promise<number[]> {
  const admin = await openPool({ max: 1 });
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE (query = $1 AND state = 'idle') OR (query LIKE '%ORDER BY expires_at, run_id%' AND query LIKE $2)`,
    [`LISTEN "${table}"`, `%"${table}_lease"%`],
  );
  return rows.map((row) => row.pid);
}

describe('postgresJournal: watch', { timeout: 30_000 }, () => {
  it('wakes for each append and release from another pool, ignores what others notify, and stops on abort', async () => {
    const table = freshTable();
    const pool = await openPool();
    const store = postgresJournal({ pool, table });
    const writer = postgresJournal({ pool: await openPool(), table });
    const watch = watching(store);
    await until(async () => (await listeners(table)).length === 1, 'the watch to listen');
    const appended = watch.next('a');
    await writer.append('a', [step(0)], 0);
    await appended;
    const lease = await writer.claim!('b', { holder: 'h', ms: 30_000 });
    await lease.append([step(0)], 0);
    const released = watch.next('b');
    await lease.release();
    await released;
    // A NOTIFY on the channel that is not a run id, or on another channel, wakes nothing.
    const admin = await openPool({ max: 1 });
    await admin.query(`SELECT pg_notify($1, $2), pg_notify($1, ''), pg_notify($1, repeat('x', 200)), pg_notify($3, 'a')`, [table, 'bad\u0001id', `${table}x`]);
    const third = watch.next('c');
    await writer.append('c', [step(0)], 0);
    await third;
    expect(watch.woken).toEqual(['a', 'b', 'b', 'c']);

    const clients = pool.totalCount;
    watch.stop.abort();
    await until(async () => (await listeners(table)).length === 0 && pool.totalCount === clients - 1, 'the listening client to go');
    await writer.append('a', [step(1)], 1);
    await sleep(300);
    expect(watch.woken).toEqual(['a', 'b', 'b', 'c']);
  });

  it('an expired lease wakes its run once, after `ms` on the database clock and within one sweep of it', async () => {
    const table = freshTable();
    const store = postgresJournal({ pool: await openPool(), table });
    const writer = postgresJournal({ pool: await openPool(), table });
    const watch = watching(store);
    await until(async () => (await listeners(table)).length === 1, 'the watch to listen');
    const ms = 3_000;
    // A holder that claims and then dies: nothing releases the lease, only its expiry ends it.
    const claimed = performance.now();
    const woken = watch.next('dead');
    await writer.claim!('dead', { holder: 'crashed', ms });
    const at = await woken;
    expect(at - claimed).toBeGreaterThanOrEqual(ms);
    // Within a sweep and a busy machine's slack of it, and well before twice ms.
    expect(at - claimed).toBeLessThan(ms + SWEEP_MS + 1_500);
    await sleep(2 * SWEEP_MS);
    expect(watch.woken.filter((id) => id === 'dead')).toEqual(['dead']);
    watch.stop.abort();
  });

  it('a killed listening connection is made again, and every run is woken for what it missed', async () => {
    const table = freshTable();
    const store = postgresJournal({ pool: await openPool(), table });
    const writer = postgresJournal({ pool: await openPool(), table });
    await writer.append('before', [step(0)], 0);
    const watch = watching(store);
    let seen: number[] = [];
    await until(async () => (seen = await listeners(table)).length === 1, 'the watch to listen');
    const [pid] = seen;
    expect(pid).toBeTypeOf('number');
    const admin = await openPool({ max: 1 });
    // A reconnect whose first try meets a loaded server may wait out a try's whole bound
    // (timeoutMs, 10 s) before the next one: the wake may come past 10 s, never much past 20.
    const missed = watch.next('missed', 25_000);
    const before = watch.next('before', 25_000);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // Appended while nobody listens: no notification reaches the watch for it.
    await writer.append('missed', [step(0)], 0);
    await Promise.all([missed, before]);
    await until(async () => (await listeners(table)).length === 1, 'the watch to listen again');
    expect((await listeners(table))[0]).not.toBe(pid);
    const after = watch.next('after');
    await writer.append('after', [step(0)], 0);
    await after;
    watch.stop.abort();
    await until(async () => (await listeners(table)).length === 0, 'the listening client to go');
  }, 45_000);

  it('an abort while the client is being connected releases it the moment it arrives', async () => {
    const table = freshTable();
    const proxy = await startProxy(await sharedPostgresUrl());
    try {
      // Idle clients close at once, so the watch has to connect a new one (which the frozen proxy holds up).
      const pool = await openPool({ max: 2, idleTimeoutMillis: 1 }, proxy.url);
      const store = postgresJournal({ pool, table, timeoutMs: 5_000 });
      await store.load('r');
      await until(async () => pool.totalCount === 0, 'the idle client to close');
      proxy.freeze();
      const watch = watching(store);
      await sleep(300);
      watch.stop.abort();
      proxy.thaw();
      // Once connected, the client comes straight back (one kept would stay checked out, listening).
      await until(async () => pool.totalCount === pool.idleCount, 'the late client to be released');
      expect(await listeners(table)).toEqual([]);
      await postgresJournal({ pool: await openPool(), table }).append('r', [step(0)], 0);
      await sleep(300);
      expect(watch.woken).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
