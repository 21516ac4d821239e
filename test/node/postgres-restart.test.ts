/**
 * PostgreSQL stopped and started again under postgresJournal (issue 26): a server of this
 * file's own, cleanly stopped (`fast`) and crashed (`immediate`, WAL replay on start) while
 * writers append. While it is down appends fail `journal.unavailable`, promptly; after it is
 * back they work, leases and watches carry on, and every journal holds each acknowledged
 * entry exactly once with nothing doubled. A run the outage interrupts settles failed, typed,
 * and a resume after it finishes the run with each journaled step run once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, defineWorkflow, RulvarError, type JournalEntry, type JournalStore } from '../../src/core/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { sleep, until } from './postgres-contract.js';
import { EXTERNAL_URL, freshTable, openPool } from './postgres-shared.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

const BOUND_MS = 3_000;
let server: PostgresServer;

// A restart needs a server of this file's own; a server given by URL is left alone.
describe.skipIf(EXTERNAL_URL !== undefined)('postgresJournal: Postgres restarted in the middle', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());

  const entry = (writer: string, n: number): JournalEntry => ({ v: 1, type: 'step', name: `${writer}-${n}`, value: n }) as JournalEntry;

  /** Appends entry after entry until `stop`, learning the length anew after any failure. */
  async function writer(store: JournalStore, runId: string, name: string, stop: { done: boolean }) {
    const acknowledged: string[] = [];
    const attempted: string[] = [];
    const failures: { code: unknown; ms: number }[] = [];
    let length: number | undefined;
    for (let n = 0; !stop.done; n += 1) {
      const started = performance.now();
      try {
        length ??= (await store.load(runId)).length;
        const next = entry(name, n);
        attempted.push(next.type === 'step' ? next.name : '');
        await store.append(runId, [next], length);
        acknowledged.push(`${name}-${n}`);
        length += 1;
      } catch (error) {
        failures.push({ code: (error as { code?: unknown }).code, ms: performance.now() - started });
        length = undefined;
        if ((error as { code?: unknown }).code === 'journal.unavailable') await sleep(20);
      }
    }
    return { name, acknowledged, attempted, failures };
  }

  it('appends fail journal.unavailable while it is down and work after; nothing is lost or doubled', async () => {
    const table = freshTable();
    const stores = await Promise.all([0, 1].map(async () => postgresJournal({ pool: await openPool({ connectionTimeoutMillis: 1_000 }, server.url), table, timeoutMs: BOUND_MS })));
    const [a, b] = stores as [JournalStore, JournalStore];
    const lease = await a.claim!('leased', { holder: 'h', ms: 60_000 });
    await lease.append([entry('lease', 0)], 0);
    const woken: string[] = [];
    const watch = new AbortController();
    b.watch!((runId) => woken.push(runId), watch.signal);

    const stop = { done: false };
    // Two writers on runs of their own, and two racing on a shared one.
    const writing = Promise.all([writer(a, 'own-a', 'a', stop), writer(b, 'own-b', 'b', stop), writer(a, 'shared', 'sa', stop), writer(b, 'shared', 'sb', stop)]);
    for (const mode of ['fast', 'immediate'] as const) {
      await sleep(700);
      await server.halt(mode);
      await sleep(1_000);
      await server.resume();
    }
    await sleep(1_500);
    stop.done = true;
    const results = await writing;

    for (const { failures } of results) {
      expect(new Set(failures.map((f) => f.code))).toEqual(new Set(failures.some((f) => f.code === 'journal.conflict') ? ['journal.unavailable', 'journal.conflict'] : ['journal.unavailable']));
      // Typed and bounded: no failure took much past the bound, whatever state the server was in.
      expect(Math.max(...failures.map((f) => f.ms))).toBeLessThan(2 * BOUND_MS);
    }
    const byRun = { 'own-a': [results[0]], 'own-b': [results[1]], shared: [results[2], results[3]] };
    for (const [runId, writers] of Object.entries(byRun)) {
      const names = (await a.load(runId)).map((e) => (e.type === 'step' ? e.name : ''));
      expect(new Set(names).size).toBe(names.length);
      for (const w of writers) {
        for (const name of w!.acknowledged) expect(names).toContain(name);
        // Whatever landed was attempted: an entry failed as unavailable may have landed, once.
        expect(names.filter((name) => name.startsWith(`${w!.name}-`)).filter((name) => !w!.attempted.includes(name))).toEqual([]);
      }
      // Appends kept landing after the second restart.
      expect(names.length).toBeGreaterThan(writers.length * 5);
    }
    // The watch listens again and wakes every run, also one nothing appended to since it began.
    await until(async () => woken.includes('leased'), 'the watch to wake every run once back', 15_000);
    watch.abort();
    // The lease row outlived both restarts.
    await lease.renew();
    await lease.append([entry('lease', 1)], 1);
  }, 60_000);

  it('a run the outage interrupts fails typed; resumed after, it completes with each journaled step run once', async () => {
    const store = postgresJournal({ pool: await openPool({ connectionTimeoutMillis: 1_000 }, server.url), table: freshTable(), timeoutMs: BOUND_MS });
    const ran: string[] = [];
    let outage: Promise<void> | undefined;
    const wf = defineWorkflow({ name: 'restarted' }, async (ctx) => {
      let total = 0;
      for (let i = 0; i < 6; i += 1) {
        total += await ctx.step(`s${i}`, async () => {
          ran.push(`s${i}`);
          // The server goes down after step 3 has run and before its value is journaled.
          if (i === 3 && outage === undefined) outage = server.halt('immediate');
          await outage;
          return i * 10;
        });
      }
      return total;
    });
    // A short lease: the run's holder could not release it while the server was down, so a
    // fresh engine may take the run over only once the lease has run out (run.claimed before).
    const LEASE_MS = 1_500;
    const engine = () => createEngine({ adapters: [], journal: store, leaseMs: LEASE_MS });
    const first = await engine().run(wf, null, { runId: 'interrupted' }).result;
    const failedAt = Date.now(); // its last renewal was no later than this
    expect(first.status).toBe('failed');
    expect(first.status === 'failed' && RulvarError.is(first.error) ? first.error.code : first).toBe('journal.unavailable');
    await server.resume();
    await until(async () => (await store.load('interrupted').then(() => true, () => false)), 'the server to answer');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, failedAt + LEASE_MS + 200 - Date.now())));
    expect(await engine().resume('interrupted', wf).result).toEqual({ status: 'completed', value: 150 });
    // Steps 0-2 were journaled before the outage and never ran again; step 3 ran before its
    // entry could be written, so once more on resume (the at-least-once window); 4 and 5 once.
    expect(ran).toEqual(['s0', 's1', 's2', 's3', 's3', 's4', 's5']);
    const names = (await store.load('interrupted')).flatMap((e) => (e.type === 'step' ? [e.name] : []));
    expect(names).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
  }, 60_000);
});
