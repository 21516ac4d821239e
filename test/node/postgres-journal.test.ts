/**
 * postgresJournal on a real PostgreSQL server (postgres-shared.ts): the JournalStore contract
 * every store keeps (test/core/journal-contract.suite.ts) and what this store is held to beyond
 * it (postgres-contract.ts), then what only a shared database brings: several pools racing,
 * its tables, its bounds.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { journalContractSuite } from '../core/journal-contract.suite.js';
import { ConfigError, RulvarError } from '../../src/core/index.js';
import { DEFAULT_TABLE, postgresJournal } from '../../src/postgres/index.js';
import { MAX_ENTRY_BYTES } from '../../src/postgres/rows.js';
import { codeOf, postgresContractExtras, sleep, step, steps } from './postgres-contract.js';
import { freshTable, openPool, withSharedServer } from './postgres-shared.js';

withSharedServer();

/** Both tables of `table`, in a fixed order: proves a refused write wrote nothing. */
async function tableRows(pool: pg.Pool, table: string): Promise<unknown> {
  const entries = await pool.query(`SELECT run_id, position, entry::text AS entry FROM "${table}" ORDER BY run_id COLLATE "C", position`);
  const leases = await pool.query(`SELECT run_id, holder, expires_at FROM "${table}_lease" ORDER BY run_id COLLATE "C"`);
  return { entries: entries.rows, leases: leases.rows.map((row: Record<string, unknown>) => ({ ...row, expires_at: String(row['expires_at']) })) };
}

journalContractSuite({ describe, it, expect }, 'postgresJournal', {
  async open() {
    const table = freshTable();
    const [pool, other] = [await openPool(), await openPool()];
    // The twin is another process's store: its own pool, so its own connections.
    return { store: postgresJournal({ pool, table }), twin: () => postgresJournal({ pool: other, table }), snapshot: () => tableRows(pool, table) };
  },
  // A lease has to outlast a claim's round trips on a gate running two lanes at once.
}, { lease: true, runs: true, leaseMs: 1_500 });

postgresContractExtras('postgresJournal', {
  capabilities: { leases: true, runs: true, watch: true },
  async fresh() {
    const table = freshTable();
    const store = postgresJournal({ pool: await openPool(), table });
    return { store, again: async () => postgresJournal({ pool: await openPool(), table }) };
  },
});

describe('postgresJournal: its tables', { timeout: 30_000 }, () => {
  it('creates the documented schema on first use, in the pool search_path schema, under the default name', async () => {
    const schema = freshTable();
    const admin = await openPool({ max: 1 });
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const pool = await openPool({ options: `-c search_path=${schema}` });
      await postgresJournal({ pool }).load('r');
      const { rows } = await admin.query<{ table_name: string; column_name: string; type: string; collation: string | null }>(
        `SELECT c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) AS type, c.collation_name AS collation
         FROM information_schema.columns c JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
         WHERE c.table_schema = $1 ORDER BY c.table_name, c.ordinal_position`,
        [schema],
      );
      expect(rows.map((r) => `${r.table_name}.${r.column_name} ${r.type}${r.collation === null ? '' : ` ${r.collation}`}`)).toEqual([
        `${DEFAULT_TABLE}.run_id text C`,
        `${DEFAULT_TABLE}.position integer`,
        `${DEFAULT_TABLE}.entry json`,
        `${DEFAULT_TABLE}_lease.run_id text C`,
        `${DEFAULT_TABLE}_lease.holder text`,
        `${DEFAULT_TABLE}_lease.expires_at timestamp with time zone`,
      ]);
      const keys = await admin.query<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = $1::regnamespace AND contype = 'p' ORDER BY 1`, [schema]);
      expect(keys.rows.map((r) => r.def)).toEqual(['PRIMARY KEY (run_id)', 'PRIMARY KEY (run_id, "position")']);
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });

  it('twelve processes using a new table at once all succeed (creation is serialized)', async () => {
    const table = freshTable();
    const stores = await Promise.all(Array.from({ length: 12 }, async () => postgresJournal({ pool: await openPool({ max: 1 }), table })));
    const settled = await Promise.allSettled(stores.map((store, i) => store.append(`r${i}`, [step(i)], 0)));
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
  });

  it('a process starting on existing tables waits for no append in flight (it only reads the catalog)', async () => {
    const table = freshTable();
    const pool = await openPool();
    await postgresJournal({ pool, table }).append('r', [step(0)], 0);
    const writer = await pool.connect();
    await writer.query(`BEGIN; INSERT INTO "${table}" VALUES ('r', 1, '{"v":1}')`);
    try {
      // Were it to wait on the writer's lock, it would fail journal.unavailable at its bound.
      expect(await postgresJournal({ pool: await openPool(), table }).load('other')).toEqual([]);
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
  });

  it('refuses a table of that name that is not its own, and changes nothing in it', async () => {
    const admin = await openPool({ max: 1 });
    const wrong = [
      [`CREATE TABLE "%s" (run_id text, position integer, entry jsonb, PRIMARY KEY (run_id, position))`, 'no entry json column'],
      [`CREATE TABLE "%s" (run_id text, position integer, entry json)`, 'no unique key on (run_id, position)'],
      [`CREATE TABLE "%s" (id serial)`, 'no run_id text, position integer, entry json column'],
      [`CREATE TABLE "%s_lease" (run_id text PRIMARY KEY, holder text, expires_at timestamp)`, 'no expires_at timestamp with time zone column'],
    ];
    for (const [ddl, what] of wrong) {
      const table = freshTable();
      await admin.query(ddl!.replace('%s', table));
      const store = postgresJournal({ pool: await openPool(), table });
      const error = await store.append('r', [step(0)], 0).then(() => undefined, (e: unknown) => e);
      expect([ConfigError.is(error), (error as { code?: unknown }).code]).toEqual([true, 'config.invalid_value']);
      expect((error as Error).message).toContain(what);
      expect((error as Error).message).toContain('is not a rulvar journal table');
      await admin.query(`DROP TABLE IF EXISTS "${table}", "${table}_lease"`);
    }
  });

  it("runs its statements prepared once per connection by default, and unnamed with preparedStatements: false", async () => {
    const prepared = async (preparedStatements?: boolean) => {
      const pool = await openPool({ max: 1 });
      const table = freshTable();
      const store = postgresJournal({ pool, table, ...(preparedStatements === undefined ? {} : { preparedStatements }) });
      for (let n = 0; n < 3; n += 1) await store.append('r', [step(n)], n);
      expect((await store.load('r')).length).toBe(3);
      // The pool's one connection is the one the store used: its session's statements.
      const { rows } = await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
      await pool.end();
      return rows.map((row) => row.name.replace(table, '<table>'));
    };
    expect(await prepared()).toEqual(['rulvar_<table>_append', 'rulvar_<table>_load']);
    expect(await prepared(false)).toEqual([]);
  });

  it('refuses options it cannot use', async () => {
    const pool = await openPool();
    for (const [options, code] of [
      [undefined, 'config.invalid_value'],
      [{}, 'config.invalid_value'],
      [{ pool: {} }, 'config.invalid_value'],
      [{ pool, tableName: 'x' }, 'config.unknown_key'],
      [{ pool, table: '' }, 'config.invalid_value'],
      [{ pool, table: 'Journal' }, 'config.invalid_value'],
      [{ pool, table: 'a"; DROP TABLE x; --' }, 'config.invalid_value'],
      [{ pool, table: 'public.journal' }, 'config.invalid_value'],
      [{ pool, table: '1abc' }, 'config.invalid_value'],
      [{ pool, table: 'x'.repeat(41) }, 'config.invalid_value'],
      [{ pool, timeoutMs: 0 }, 'config.invalid_value'],
      [{ pool, timeoutMs: 1.5 }, 'config.invalid_value'],
      [{ pool, timeoutMs: '100' }, 'config.invalid_value'],
      [{ pool, preparedStatements: 'yes' }, 'config.invalid_value'],
    ] as const) {
      let error: unknown;
      try {
        postgresJournal(options as never);
      } catch (e) {
        error = e;
      }
      expect([options, ConfigError.is(error), (error as { code?: unknown }).code]).toEqual([options, true, code]);
    }
    // A reserved word is a fine name: every identifier is quoted.
    const table = 'select';
    const store = postgresJournal({ pool, table });
    await store.append('r', [step(0)], 0);
    expect(await store.load('r')).toEqual([step(0)]);
    await pool.query(`DROP TABLE "select", "select_lease"`);
  });
});

describe('postgresJournal: what it reads back is checked', { timeout: 30_000 }, () => {
  async function tampered(sql: string): Promise<string> {
    const table = freshTable();
    const store = postgresJournal({ pool: await openPool(), table });
    await store.append('run 7', steps(0, 3), 0);
    const admin = await openPool({ max: 1 });
    await admin.query(sql.replaceAll('%s', `"${table}"`));
    const error = await store.load('run 7').then(() => undefined, (e: unknown) => e);
    expect([RulvarError.is(error), (error as { code?: unknown }).code]).toEqual([true, 'journal.corrupt']);
    return (error as Error).message;
  }

  it('an entry that is not an object, a missing or misplaced position, an oversized entry: journal.corrupt naming the run and entry', async () => {
    expect(await tampered(`UPDATE %s SET entry = '[1]' WHERE position = 1`)).toBe('run "run 7": journal entry 1 is not a JSON object');
    expect(await tampered(`UPDATE %s SET entry = '"text"' WHERE position = 2`)).toBe('run "run 7": journal entry 2 is not a JSON object');
    expect(await tampered(`UPDATE %s SET entry = 'null' WHERE position = 0`)).toBe('run "run 7": journal entry 0 is not a JSON object');
    expect(await tampered(`DELETE FROM %s WHERE position = 1`)).toBe('run "run 7": journal entry 1 is missing');
    expect(await tampered(`DELETE FROM %s WHERE position = 0`)).toBe('run "run 7": journal entry 0 is missing');
    // Over the bound, only its size crosses the wire: the text is never sent or parsed.
    const huge = await tampered(`UPDATE %s SET entry = ('{"x":"' || repeat('x', ${MAX_ENTRY_BYTES}) || '"}')::json WHERE position = 1`);
    expect(huge).toBe(`run "run 7": journal entry 1 is ${MAX_ENTRY_BYTES + 8} bytes, over the ${MAX_ENTRY_BYTES} an entry may hold`);
  }, 60_000);

  it('a run id in the table that the store could not use makes runs() journal.corrupt', async () => {
    const table = freshTable();
    const store = postgresJournal({ pool: await openPool(), table });
    await store.append('fine', [step(0)], 0);
    await (await openPool({ max: 1 })).query(`INSERT INTO "${table}" VALUES ($1, 0, '{}')`, ['bad\u0001id']);
    expect(await codeOf(store.runs!())).toBe('journal.corrupt');
  });
});

describe('postgresJournal: many pools at once', { timeout: 30_000 }, () => {
  it('sixteen writers on four pools, each loading then appending at the length it saw: every journal dense, each win once', async () => {
    const table = freshTable();
    const stores = await Promise.all(Array.from({ length: 4 }, async () => postgresJournal({ pool: await openPool({ max: 4 }), table })));
    const wins: string[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        const store = stores[w % 4]!;
        for (let n = 0; n < 8; ) {
          const length = (await store.load('hot')).length;
          const name = `w${w}-${n}`;
          try {
            await store.append('hot', [{ v: 1, type: 'step', name, value: length } as never], length);
            wins.push(name);
            n += 1;
          } catch (error) {
            expect((error as { code?: unknown }).code).toBe('journal.conflict');
          }
        }
      }),
    );
    const journal = await stores[0]!.load('hot');
    expect(journal).toHaveLength(128);
    // Each entry holds the length its writer saw, which is its own position: no append landed
    // anywhere but at the expectedLength it was given.
    expect(journal.map((e) => (e as { value: unknown }).value)).toEqual(journal.map((_, i) => i));
    expect(new Set(journal.map((e) => (e as { name: string }).name))).toEqual(new Set(wins));
  }, 60_000);

  it('eight holders on eight pools claiming one run at once: exactly one gets it, round after round', async () => {
    const table = freshTable();
    const stores = await Promise.all(Array.from({ length: 8 }, async () => postgresJournal({ pool: await openPool({ max: 1 }), table })));
    for (let round = 0; round < 5; round += 1) {
      const settled = await Promise.allSettled(stores.map((store, i) => store.claim!('contested', { holder: `h${i}`, ms: 30_000 })));
      const won = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      expect(won).toHaveLength(1);
      expect(settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.code)).toEqual(Array(7).fill('run.claimed'));
      await won[0]!.append([step(round)], round);
      await won[0]!.release();
    }
    expect(await stores[0]!.load('contested')).toEqual(steps(0, 5));
  });

  it('a fenced append in flight holds off a claim of its lease until it commits: the new holder sees what it wrote', async () => {
    const table = freshTable();
    const pool = await openPool();
    const [old, next] = [postgresJournal({ pool, table }), postgresJournal({ pool: await openPool(), table })];
    const lease = await old.claim!('fenced', { holder: 'old', ms: 1_000 });
    await lease.append([step(0)], 0);
    // A third session's uncommitted insert at position 1 stalls the old holder's append inside
    // its statement: its lease was live when the statement checked it, and the insert waits.
    const blocker = await pool.connect();
    await blocker.query(`BEGIN; INSERT INTO "${table}" VALUES ('fenced', 1, '{"v":1}')`);
    const order: string[] = [];
    const appending = lease.append([step(1)], 1).then(() => order.push('old appended'));
    await sleep(1_200);
    const claiming = next.claim!('fenced', { holder: 'new', ms: 30_000 }).then((taken) => (order.push('new claimed'), taken));
    await sleep(300);
    expect(order).toEqual([]);
    await blocker.query('ROLLBACK');
    blocker.release();
    const taken = await claiming;
    await appending;
    // Which of the two callbacks runs first is up to two sockets' order of arrival, not the
    // server's: that the claim came after the commit shows in what the new holder loads.
    expect(await taken.load()).toEqual(steps(0, 2));
    expect(await codeOf(lease.append([step(2)], 2))).toBe('run.lease_lost');
  });
});
