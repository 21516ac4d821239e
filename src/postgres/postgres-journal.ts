/**
 * `postgresJournal({ pool, table?, timeoutMs?, preparedStatements? })`: the JournalStore of a PostgreSQL database,
 * shared by every process that uses the same tables. An append is one statement (a batch too
 * large for one goes in parts, in one transaction: rows.ts): it inserts the batch at
 * positions expectedLength… only when the entry before the first is there, and
 * the primary key (run_id, position) refuses a position taken by a racing append, so a stale
 * expectedLength is `journal.conflict` and writes nothing. Leases are rows (lease.ts), `runs`
 * lists the runs in byte order, `watch` wakes through LISTEN/NOTIFY (watch.ts).
 */
import { ConfigError, RulvarError } from '../core/errors.js';
import type { JournalStore } from '../core/journal/store.js';
import { claimRun } from './lease.js';
import { checkId, DEFAULT_TABLE, isFitId, tableNames } from './names.js';
import type { PostgresJournalOptions } from './pool.js';
import { isStorableLength, queries } from './queries.js';
import { batchParts, entriesOf } from './rows.js';
import { session } from './session.js';
import { statements } from './statements.js';
import { watchRuns } from './watch.js';

/** How long one operation may take (waiting for a client included) when `timeoutMs` is not given. */
export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 2_147_483_647;
const KNOWN_OPTIONS = new Set(['pool', 'table', 'timeoutMs', 'preparedStatements']);

/**
 * A JournalStore in PostgreSQL over the application's own pool: tables made on first use,
 * one statement per append with `expectedLength` as the compare-and-set, leases on the
 * database clock, `runs()` and a LISTEN/NOTIFY `watch` (docs/journals.md, "PostgreSQL").
 */
export function postgresJournal(options: PostgresJournalOptions): JournalStore {
  const { pool, table = DEFAULT_TABLE, timeoutMs = DEFAULT_TIMEOUT_MS, preparedStatements = true } = checkOptions(options);
  const tables = tableNames(table);
  const q = queries(tables, statements(tables), session(pool, timeoutMs), preparedStatements);
  const { sql } = q;

  return {
    async load(runId) {
      checkId(runId);
      return entriesOf(runId, await q.rows(`the load of run ${JSON.stringify(runId)}`, sql.load, [runId]));
    },
    async append(runId, entries, expectedLength) {
      checkId(runId);
      const parts = batchParts(runId, entries, isStorableLength(expectedLength) ? expectedLength : 0);
      if (!isStorableLength(expectedLength)) throw await q.conflict(runId, expectedLength);
      if (entries.length === 0) {
        const [row] = await q.rows(`the append to run ${JSON.stringify(runId)}`, sql.lengthIs, [runId, expectedLength]);
        if (row?.['ok'] !== true) throw await q.conflict(runId, expectedLength);
        return;
      }
      const [row] = await q.appendRows(runId, expectedLength, sql.append, (part) => [runId, expectedLength, part], parts);
      if (Number(row?.['inserted']) !== entries.length) throw await q.conflict(runId, expectedLength);
    },
    claim: (runId, request) => claimRun(q, runId, request),
    async runs() {
      const rows = await q.rows('listing the runs', sql.runs, []);
      return rows.map((row) => {
        const runId = row['run_id'];
        if (!isFitId(runId)) throw new RulvarError('journal.corrupt', `postgresJournal: table "${tables.name}" holds a run id the store cannot use (${typeof runId === 'string' ? `${runId.length} characters` : `a ${typeof runId}`})`);
        return runId;
      });
    },
    watch(wake, signal) {
      watchRuns(q, pool, wake, signal);
    },
  };
}

function checkOptions(options: PostgresJournalOptions): PostgresJournalOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('config.invalid_value', 'postgresJournal needs options: { pool, table?, timeoutMs?, preparedStatements? }');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigError('config.unknown_key', `postgresJournal does not take ${JSON.stringify(key)} (it takes pool, table, timeoutMs, preparedStatements)`);
  }
  if (options.preparedStatements !== undefined && typeof options.preparedStatements !== 'boolean') {
    throw new ConfigError('config.invalid_value', `postgresJournal: preparedStatements is true or false, not a ${typeof options.preparedStatements}`);
  }
  if (typeof options.pool?.connect !== 'function') throw new ConfigError('config.invalid_value', 'postgresJournal needs pool: a pg.Pool (an object with connect())');
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)) {
    throw new ConfigError('config.invalid_value', `postgresJournal: timeoutMs is a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${typeof timeoutMs === 'number' ? timeoutMs : `a ${typeof timeoutMs}`}`);
  }
  return options;
}
