/**
 * What postgresJournal needs of node-postgres, written as structural types so the entry never
 * imports `pg` (an optional peer): a `pg.Pool` fits them as it is, and nothing of `pg`'s
 * types is needed to build or run this entry. The store only ever checks a client out of the
 * pool, runs single statements on it and hands it back (destroyed when it broke or hung).
 */

/** A `pg.Pool` (or anything with its `connect`). */
export interface PostgresPool {
  /** Checks a client out (`pg.Pool#connect`); the store hands each back when its statement is done. */
  connect(): Promise<PostgresPoolClient>;
  /**
   * `pg.Pool#options`: read only to keep its password and connection string out of every
   * error the store makes, whatever a driver or server message quotes.
   */
  readonly options?: { readonly password?: unknown; readonly connectionString?: unknown } | undefined;
}

/** A client checked out of the pool (`pg.PoolClient`). */
export interface PostgresPoolClient {
  /** One parameterised statement (`pg.Client#query`): the store never builds SQL from values. */
  query(text: string, values?: unknown[]): Promise<PostgresResult>;
  /** The same as a named statement (`pg`'s QueryConfig): prepared once per connection, then only bound and run. */
  query(config: { readonly name: string; readonly text: string; readonly values: unknown[] }): Promise<PostgresResult>;
  /** Hands the client back; `true` or an error destroys its connection instead. */
  release(destroy?: boolean | Error): void;
  /** A broken connection, so the store destroys the client instead of handing it back. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** The connection ended (a `watch` reconnects). */
  on(event: 'end', listener: () => void): unknown;
  /** A NOTIFY on a channel this client LISTENs to (`watch`). */
  on(event: 'notification', listener: (message: PostgresNotification) => void): unknown;
  /** Undoes `on('error')` before the client goes back to the pool. */
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
  /** Undoes `on('notification')` when a `watch` ends. */
  removeListener(event: 'notification', listener: (message: PostgresNotification) => void): unknown;
}

/** What a statement answered: only its rows are read (and each is checked before use). */
export interface PostgresResult {
  readonly rows: readonly unknown[];
}

/** A NOTIFY delivered to a client that LISTENs. */
export interface PostgresNotification {
  readonly channel: string;
  readonly payload?: string | undefined;
}

/** Options of `postgresJournal`. */
export interface PostgresJournalOptions {
  /** The application's `pg.Pool`; the store checks clients out of it and never ends it. */
  readonly pool: PostgresPool;
  /**
   * The entries table, unqualified (the pool's `search_path` picks its schema): lowercase
   * letters, digits and `_`, at most 40 characters. The lease table is `<table>_lease`.
   * Default `rulvar_journal`.
   */
  readonly table?: string;
  /**
   * The longest one load, append, claim, renew, release or listing may take, from asking the
   * pool for a client to the answer (default 10,000 ms). Past it the operation fails
   * `journal.unavailable` and its connection is destroyed, so a hung database never hangs a run.
   */
  readonly timeoutMs?: number;
  /**
   * Whether the store's statements run as named prepared statements, each parsed and planned
   * once per connection (default true: an append then costs what a raw INSERT does, where
   * planning it afresh each time cost 1.7×). `false` for a pooler that cannot keep them
   * across transactions (PgBouncer in transaction mode before 1.21).
   */
  readonly preparedStatements?: boolean;
}
