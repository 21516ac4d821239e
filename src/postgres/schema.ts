/**
 * The store's two tables, made on first use and then checked to be the store's own:
 *
 *   <table>        run_id text COLLATE "C", position integer, entry json;
 *                  primary key (run_id, position): the compare-and-set of `expectedLength`
 *   <table>_lease  run_id text COLLATE "C" primary key, holder text, expires_at timestamptz
 *
 * `json`, not `jsonb`: it keeps each entry's text exactly as written, so a replay sees the
 * object keys in the order the live run had them (jsonb sorts them, and a workflow that
 * builds a prompt from a step's value would then prompt differently on resume), and it holds
 * every string JSON can (jsonb refuses \u0000 and unpaired surrogates). The "C" collation
 * makes run ids equal only when their bytes are, and gives `runs()` an order no locale moves.
 *
 * Creation takes a transaction-scoped advisory lock first: two processes making the tables at
 * once would otherwise both pass IF NOT EXISTS and one fail on the catalog's unique index.
 * The indexes come after the check, so a table of the name that is not the store's is
 * refused as such (and left as it was) rather than failing on a column it lacks.
 */
import { ConfigError } from '../core/errors.js';
import type { TableNames } from './names.js';
import type { PostgresPoolClient } from './pool.js';

/** The advisory lock every rulvar journal's setup takes ("rulvar" in ASCII). */
const SETUP_LOCK = 0x72756c766172;

/** Both tables, when missing. */
export function tablesSql(t: TableNames): string {
  return `SELECT pg_advisory_xact_lock(${SETUP_LOCK});
CREATE TABLE IF NOT EXISTS ${t.entries} (
  run_id text COLLATE "C" NOT NULL,
  position integer NOT NULL CHECK (position >= 0),
  entry json NOT NULL,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS ${t.leases} (
  run_id text COLLATE "C" PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);`;
}

/** Their indexes, once the tables are known to be the store's: the run list and the expiry sweep. */
export function indexesSql(t: TableNames): string {
  return `SELECT pg_advisory_xact_lock(${SETUP_LOCK});
CREATE INDEX IF NOT EXISTS ${t.runsIndex} ON ${t.entries} (run_id) WHERE position = 0;
CREATE INDEX IF NOT EXISTS ${t.expiryIndex} ON ${t.leases} (expires_at);`;
}

/** The columns each table must have (others may be added), and the key it must be unique on. */
const SHAPES = (t: TableNames) => [
  { table: t.entriesName, columns: { run_id: 'text', position: 'integer', entry: 'json' }, key: ['run_id', 'position'] },
  { table: t.leasesName, columns: { run_id: 'text', holder: 'text', expires_at: 'timestamp with time zone' }, key: ['run_id'] },
];

const COLUMNS_SQL = `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type
FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`;

/** The columns of each plain unique index of the table, sorted by name. */
const KEYS_SQL = `SELECT array(SELECT attname::text FROM pg_attribute WHERE attrelid = i.indrelid AND attnum = ANY (i.indkey) ORDER BY 1) AS key
FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL`;

/**
 * Creates the tables when missing and refuses tables of that name that are not the store's.
 * When the indexes are there already (every use but the first), it only reads the catalog:
 * CREATE INDEX IF NOT EXISTS locks its table before it looks, so it would wait on every
 * append in flight.
 */
export async function prepareTables(client: PostgresPoolClient, t: TableNames): Promise<void> {
  const [found] = (await client.query(INDEXES_SQL, [t.runsIndex, t.expiryIndex])).rows as { present?: unknown }[];
  const made = found?.present === true;
  if (!made) await client.query(tablesSql(t));
  await checkShapes(client, t);
  if (!made) await client.query(indexesSql(t));
}

const INDEXES_SQL = `SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS present`;

async function checkShapes(client: PostgresPoolClient, t: TableNames): Promise<void> {
  for (const shape of SHAPES(t)) {
    const columns = (await client.query(COLUMNS_SQL, [`"${shape.table}"`])).rows as { name?: unknown; type?: unknown }[];
    const keys = (await client.query(KEYS_SQL, [`"${shape.table}"`])).rows as { key?: unknown }[];
    const missing = Object.entries(shape.columns).filter(([name, type]) => !columns.some((c) => c.name === name && c.type === type));
    const wanted = [...shape.key].sort().join(',');
    const keyed = keys.some((k) => Array.isArray(k.key) && k.key.join(',') === wanted);
    if (missing.length > 0 || !keyed) {
      const what = missing.length > 0 ? `no ${missing.map(([name, type]) => `${name} ${type}`).join(', ')} column` : `no unique key on (${shape.key.join(', ')})`;
      throw new ConfigError('config.invalid_value', `postgresJournal: table "${shape.table}" exists but is not a rulvar journal table (it has ${what}); choose another table name`);
    }
  }
}
