/**
 * `@rulvar/core/postgres`: `postgresJournal`, a JournalStore in PostgreSQL that any number of
 * processes share, with native leases and LISTEN/NOTIFY wake-ups. It runs over the
 * application's own `pg.Pool` (node-postgres 8, an optional peer dependency): the entry never
 * imports `pg`, it only calls the pool it is given. Schema and behaviour: docs/journals.md.
 *
 * @module @rulvar/core/postgres
 */
export { postgresJournal, DEFAULT_TIMEOUT_MS } from './postgres-journal.js';
export { DEFAULT_TABLE } from './names.js';
export type { PostgresJournalOptions, PostgresPool, PostgresPoolClient, PostgresResult, PostgresNotification } from './pool.js';
export type { JournalStore, JournalLease, LeaseRequest } from '../core/journal/store.js';
