/**
 * postgresJournal when Postgres does not answer: a hung server (a proxy that stops every
 * byte), a pool that never frees a client, a statement stuck behind a lock. Each fails
 * `journal.unavailable` within `timeoutMs` (not before it, well before twice it) and leaves
 * the pool whole; and no failure of any kind shows the pool's password or connection string.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RulvarError, type JournalStore } from '../../src/core/index.js';
import { postgresJournal } from '../../src/postgres/index.js';
import { batchParts, PART_UNITS } from '../../src/postgres/rows.js';
import { codeOf, sleep, step, until } from './postgres-contract.js';
import { startProxy, type PostgresProxy } from './postgres-proxy.js';
import { freshTable, openPool, withSharedServer, sharedPostgresUrl } from './postgres-shared.js';

withSharedServer();

const BOUND_MS = 1_500;

/** What `promise` rejected with and how long it took. */
async function timed(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(() => undefined, (e: unknown) => e);
  return { error, ms: performance.now() - started };
}

function expectBounded({ error, ms }: { error: unknown; ms: number }, what: string): void {
  expect([RulvarError.is(error), (error as { code?: unknown }).code]).toEqual([true, 'journal.unavailable']);
  expect((error as Error).message).toContain(what);
  expect((error as Error).message).toContain(`got no answer from Postgres within ${BOUND_MS} ms`);
  // The timer is the bound: never early (a few ms of timer granularity aside), and its slack
  // under load stays far below a doubled bound.
  expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 5);
  expect(ms).toBeLessThan(2 * BOUND_MS);
}

describe('postgresJournal: bounded when Postgres does not answer', { timeout: 30_000 }, () => {
  let proxy: PostgresProxy;
  beforeAll(async () => {
    proxy = await startProxy(await sharedPostgresUrl());
  });
  afterAll(() => proxy.close());

  it('a hung server: each operation fails journal.unavailable within timeoutMs, and works once it answers again', async () => {
    const pool = await openPool({ max: 8 }, proxy.url);
    const table = freshTable();
    const store = postgresJournal({ pool, table, timeoutMs: BOUND_MS });
    await store.append('r', [step(0)], 0);
    const lease = await store.claim!('leased', { holder: 'a', ms: 30_000 });
    proxy.freeze();
    try {
      const results = await Promise.all([
        timed(store.load('r')),
        timed(store.append('r', [step(1)], 1)),
        timed(store.claim!('other', { holder: 'a', ms: 30_000 })),
        timed(store.runs!()),
        timed(lease.renew()),
        timed(lease.append([step(0)], 0)),
      ]);
      const names = ['the load of run "r"', 'the append to run "r"', 'the claim of run "other"', 'listing the runs', 'the renewal of the lease of run "leased"', 'the append to run "leased"'];
      results.forEach((result, i) => expectBounded(result, names[i]!));
      // A release never rejects, and never waits past the bound either.
      const release = await timed(lease.release());
      expect(release.error).toBeUndefined();
      expect(release.ms).toBeLessThan(2 * BOUND_MS);
    } finally {
      proxy.thaw();
    }
    // The hung connections were destroyed, not handed back: the pool serves fresh ones.
    expect(pool.waitingCount).toBe(0);
    await until(async () => pool.totalCount === pool.idleCount, 'the pool to settle');
    expect(await store.load('r')).toHaveLength((await postgresJournal({ pool: await openPool(), table }).load('r')).length);
    await lease.renew().catch(() => undefined);
  });

  it('a connection that hangs is destroyed, not handed back: the next operation gets a fresh one and succeeds', async () => {
    const pool = await openPool({ max: 2 }, proxy.url);
    const store = postgresJournal({ pool, table: freshTable(), timeoutMs: BOUND_MS });
    await Promise.all([store.append('a', [step(0)], 0), store.append('b', [step(0)], 0)]);
    expect(pool.totalCount).toBe(2);
    proxy.freezeOpen();
    try {
      const hung = await Promise.all([timed(store.load('a')), timed(store.load('b'))]);
      hung.forEach((result) => expectBounded(result, 'the load of run'));
      // Both pooled connections are still black-holed (one handed back would time out again); fresh ones flow.
      expect(await store.load('a')).toEqual([step(0)]);
      expect(await store.load('b')).toEqual([step(0)]);
    } finally {
      proxy.thaw();
    }
  });

  it('a pool that never frees a client: bounded, and the client it frees late is handed straight back', async () => {
    const pool = await openPool({ max: 1 });
    const store = postgresJournal({ pool, table: freshTable(), timeoutMs: BOUND_MS });
    await store.append('r', [step(0)], 0);
    const held = await pool.connect();
    try {
      expectBounded(await timed(store.load('r')), 'the load of run "r"');
    } finally {
      held.release();
    }
    await until(async () => pool.idleCount === pool.totalCount && pool.waitingCount === 0, 'the late client to come back');
    expect(await store.load('r')).toEqual([step(0)]);
  });

  it('an append stuck behind a lock fails within the bound; retried, it lands exactly once', async () => {
    const pool = await openPool();
    const table = freshTable();
    const store = postgresJournal({ pool, table, timeoutMs: BOUND_MS });
    await store.load('r');
    const locker = await pool.connect();
    await locker.query(`BEGIN; LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
    try {
      expectBounded(await timed(store.append('r', [step(0)], 0)), 'the append to run "r"');
    } finally {
      await locker.query('COMMIT');
      locker.release();
    }
    // The server may still finish the statement it was given; either way the retry cannot
    // double it: it lands, or it finds the entry there and conflicts.
    await sleep(200);
    const retried = await codeOf(store.append('r', [step(0)], 0));
    expect(['resolved', 'journal.conflict']).toContain(retried);
    expect(await store.load('r')).toEqual([step(0)]);
  });

  it('a failed operation of any kind hands its client back (no leak across 30 failures)', async () => {
    const pool = await openPool({ max: 2 });
    const store = postgresJournal({ pool, table: freshTable() });
    await store.append('r', [step(0)], 0);
    await (await store.claim!('held', { holder: 'a', ms: 30_000 })).append([step(0)], 0);
    for (let i = 0; i < 10; i += 1) {
      expect(await codeOf(store.append('r', [step(1)], 0))).toBe('journal.conflict');
      expect(await codeOf(store.claim!('held', { holder: 'b', ms: 1_000 }))).toBe('run.claimed');
      expect(await codeOf(store.append('r', [{ v: 1, type: 'step', name: 'deep', value: deep(100_000) } as never], 1))).toBe('config.invalid_value');
    }
    expect([pool.totalCount - pool.idleCount, pool.waitingCount]).toEqual([0, 0]);
    expect(await store.load('r')).toEqual([step(0)]);
  });
});

describe('postgresJournal: a batch larger than one statement', { timeout: 120_000 }, () => {
  // Two of these cannot share a part.
  const large = (name: string) => step(1, { text: name.repeat(Math.ceil(PART_UNITS / 2 / name.length) + 1) });

  it('is cut into parts of at most PART_UNITS, in order, an entry larger than that alone', () => {
    const small = Array.from({ length: 5 }, (_, i) => step(i));
    const huge = step(9, { text: 'z'.repeat(PART_UNITS + 10) });
    const parts = batchParts('r', [large('a'), ...small, large('b'), huge, ...small], 0);
    expect(parts.map((part) => part.count)).toEqual([6, 1, 1, 5]);
    expect(parts.filter((part) => part.count > 1).every((part) => part.text.length <= PART_UNITS)).toBe(true);
    expect(parts.flatMap((part) => JSON.parse(part.text) as unknown[])).toEqual([large('a'), ...small, large('b'), huge, ...small]);
    expect(batchParts('r', small, 0)).toEqual([{ text: JSON.stringify(small), count: 5 }]);
  });

  it('lands whole in several statements of one transaction, or not at all', async () => {
    const pool = await openPool({ max: 2 });
    const table = freshTable();
    const store = postgresJournal({ pool, table, timeoutMs: 60_000 });
    await store.append('r', [step(0)], 0);
    // A row written behind the store's back at position 2: the second part collides with it
    // after the first landed in the transaction, and nothing of the batch may stay.
    await pool.query(`INSERT INTO "${table}" (run_id, position, entry) VALUES ('r', 2, '{}')`);
    expect(await codeOf(store.append('r', [large('a'), large('b')], 1))).toBe('journal.conflict');
    const positions = await pool.query<{ position: number }>(`SELECT position FROM "${table}" WHERE run_id = 'r' ORDER BY position`);
    expect(positions.rows.map((row) => row.position)).toEqual([0, 2]);
    await pool.query(`DELETE FROM "${table}" WHERE position = 2`);
    // A stale length fails the first part: a conflict, and nothing written.
    expect(await codeOf(store.append('r', [large('c'), large('d')], 0))).toBe('journal.conflict');
    expect(await store.load('r')).toEqual([step(0)]);
    // Through a lease (the fenced statement leads the parts), then without: every part lands.
    const lease = await store.claim!('r', { holder: 'h', ms: 30_000 });
    await lease.append([large('e'), large('f')], 1);
    await lease.release();
    await store.append('r', [large('g'), large('h'), step(5)], 3);
    const loaded = await store.load('r');
    expect(loaded.map((entry) => (entry as { value?: { text?: string } }).value?.text?.[0] ?? 'step')).toEqual(['step', 'e', 'f', 'g', 'h', 'step']);
    expect(loaded[2]).toEqual(large('f'));
    expect([pool.totalCount - pool.idleCount, pool.waitingCount]).toEqual([0, 0]);
  });
});

/** Nested arrays deeper than Postgres's JSON parser will go. */
function deep(levels: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

describe('postgresJournal: secrets never reach errors', { timeout: 30_000 }, () => {
  const PASSWORD = 'Sup3r-s3cret-pässword';

  async function failures(store: JournalStore): Promise<string[]> {
    const errors = [
      await store.load('r').then(() => undefined, (e: unknown) => e),
      await store.append('r', [step(0)], 0).then(() => undefined, (e: unknown) => e),
      await store.claim!('r', { holder: 'a', ms: 1_000 }).then(() => undefined, (e: unknown) => e),
    ];
    return errors.map((error) => {
      expect((error as { code?: unknown }).code).toBe('journal.unavailable');
      const cause = (error as { cause?: unknown }).cause;
      return [String(error), (error as Error).stack, JSON.stringify(error), String(cause), (cause as Error | undefined)?.stack].join('\n');
    });
  }

  it('a server that refuses the connection or the password, or a pool that quotes its own configuration', async () => {
    const real = new URL(await sharedPostgresUrl());
    const closed = new URL(real);
    closed.port = '1';
    const wrongPassword = new URL(real);
    wrongPassword.password = encodeURIComponent(PASSWORD);
    const texts: string[] = [];
    for (const url of [closed, wrongPassword]) {
      const pool = await openPool({ connectionString: url.toString(), connectionTimeoutMillis: 2_000 });
      texts.push(...(await failures(postgresJournal({ pool, table: freshTable() }))));
    }
    expect(texts.some((text) => text.includes('password authentication failed'))).toBe(true);
    // A pool is the caller's: one that quotes its credentials in its errors is scrubbed too.
    const quoting = {
      options: { password: PASSWORD, connectionString: wrongPassword.toString() },
      connect: async (): Promise<never> => {
        throw new Error(`cannot reach ${wrongPassword.toString()} with password=${PASSWORD} or "${PASSWORD}"`);
      },
    };
    texts.push(...(await failures(postgresJournal({ pool: quoting as never, table: freshTable() }))));
    for (const text of texts) {
      for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), real.password, wrongPassword.toString(), real.toString()]) expect(text).not.toContain(secret);
    }
    expect(texts.at(-1)).toContain('[redacted]');
  });
});
