/**
 * Every statement the store runs, for one pair of tables. Each is a single statement, so each
 * is one transaction on its own (autocommit): an append writes all its entries or none, a
 * lost race raises the primary key's unique violation before anything commits, and a failed
 * statement leaves no transaction open on the pooled connection. (The one exception is a
 * batch too large for one statement: its parts are appends inside one transaction, queries.ts.)
 *
 * The lease is fenced by row locks, not by clocks: a fenced append locks its lease row FOR
 * SHARE while it inserts, and a claim's upsert needs the row exclusively, so a claim either
 * commits before the append (which then finds another holder and inserts nothing) or waits
 * for it. Expiry is judged on the database's clock alone.
 */
import type { TableNames } from './names.js';
import { ENTRY_COLUMNS } from './rows.js';

export interface Statements {
  /** $1 run. */
  readonly load: string;
  /** $1 run, $2 holder: `leased` on the first row, then the entries (none when not leased). */
  readonly leasedLoad: string;
  /** $1 run, $2 expected length: `ok` when the run holds exactly that many entries. */
  readonly lengthIs: string;
  /** As lengthIs, with $3 holder: also `leased`. */
  readonly fencedLengthIs: string;
  /** $1 run, $2 expected length, $3 JSON array of entries: `inserted` (0: the entry before is missing). */
  readonly append: string;
  /** As append, with $4 holder: also `leased`, and nothing is inserted when it is false. */
  readonly fencedAppend: string;
  /** $1 run, $2 holder, $3 ms: a row when the lease was taken (free, expired, or the holder's own). */
  readonly claim: string;
  /** $1 run, $2 holder, $3 ms: a row when the holder's live lease was extended. */
  readonly renew: string;
  /** $1 run, $2 holder: deletes the holder's lease row and notifies. */
  readonly release: string;
  readonly runs: string;
  /**
   * $1, $2: the (expires_at in µs since the epoch, run) after which to look. Leases that
   * expired since, oldest first, and the database's clock in µs (`now`) on every row.
   */
  readonly expired: string;
  readonly now: string;
  readonly listen: string;
}

/** Leases that expire in one sweep beyond this are taken up by the next sweep. */
export const EXPIRED_PAGE = 500;

export function statements(t: TableNames): Statements {
  const liveLease = (holder: string) => `FROM ${t.leases} WHERE run_id = $1 AND holder = ${holder} AND expires_at > clock_timestamp()`;
  const previousExists = `($2::integer = 0 OR EXISTS (SELECT 1 FROM ${t.entries} WHERE run_id = $1 AND position = $2::integer - 1))`;
  const lengthIs = `${previousExists} AND NOT EXISTS (SELECT 1 FROM ${t.entries} WHERE run_id = $1 AND position = $2::integer)`;
  const insert = (condition: string) => `INSERT INTO ${t.entries} (run_id, position, entry)
    SELECT $1, $2::integer + x.o::integer - 1, x.e FROM json_array_elements($3::json) WITH ORDINALITY AS x(e, o)
    WHERE ${condition} RETURNING 1`;
  const notify = (count: string) => `CASE WHEN ${count} > 0 THEN pg_notify('${t.channel}', $1) END`;
  const micros = (timestamp: string) => `(extract(epoch FROM ${timestamp}) * 1000000)::bigint::text`;
  return {
    load: `SELECT ${ENTRY_COLUMNS('e')} FROM ${t.entries} e WHERE e.run_id = $1 ORDER BY e.position`,
    leasedLoad: `SELECT l.leased, ${ENTRY_COLUMNS('e')}
      FROM (SELECT EXISTS (SELECT 1 ${liveLease('$2')}) AS leased) l LEFT JOIN ${t.entries} e ON l.leased AND e.run_id = $1
      ORDER BY e.position NULLS FIRST`,
    lengthIs: `SELECT ${lengthIs} AS ok`,
    fencedLengthIs: `SELECT EXISTS (SELECT 1 ${liveLease('$3')}) AS leased, ${lengthIs} AS ok`,
    append: `WITH ins AS (${insert(previousExists)})
      SELECT n.inserted, ${notify('n.inserted')} FROM (SELECT count(*)::integer AS inserted FROM ins) n`,
    fencedAppend: `WITH lease AS MATERIALIZED (SELECT holder ${liveLease('$4')} FOR SHARE),
      ins AS (${insert(`EXISTS (SELECT 1 FROM lease) AND ${previousExists}`)})
      SELECT (SELECT count(*) FROM lease)::integer AS leased, n.inserted, ${notify('n.inserted')}
      FROM (SELECT count(*)::integer AS inserted FROM ins) n`,
    claim: `INSERT INTO ${t.leases} AS l (run_id, holder, expires_at) VALUES ($1, $2, clock_timestamp() + $3::integer * interval '1 millisecond')
      ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE l.expires_at <= clock_timestamp() OR l.holder = excluded.holder
      RETURNING 1`,
    renew: `UPDATE ${t.leases} SET expires_at = clock_timestamp() + $3::integer * interval '1 millisecond'
      WHERE run_id = $1 AND holder = $2 AND expires_at > clock_timestamp() RETURNING 1`,
    release: `WITH gone AS (DELETE FROM ${t.leases} WHERE run_id = $1 AND holder = $2 RETURNING run_id)
      SELECT pg_notify('${t.channel}', run_id) FROM gone`,
    runs: `SELECT run_id FROM ${t.entries} WHERE position = 0 ORDER BY run_id COLLATE "C"`,
    expired: `SELECT c.now, s.run_id, s.at FROM (SELECT ${micros('now()')} AS now) c LEFT JOIN LATERAL (
        SELECT run_id, ${micros('expires_at')} AS at FROM ${t.leases}
        WHERE (expires_at, run_id) > (timestamptz 'epoch' + $1::bigint * interval '1 microsecond', $2::text) AND expires_at <= now()
        ORDER BY expires_at, run_id LIMIT ${EXPIRED_PAGE}) s ON true`,
    now: `SELECT ${micros('now()')} AS now`,
    listen: `LISTEN "${t.channel}"`,
  };
}
