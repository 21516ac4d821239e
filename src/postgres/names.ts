/**
 * The names the store puts into SQL and NOTIFY: its tables (validated once, then always
 * quoted, so a reserved word is a fine name) and the run ids and holders it is given (checked
 * on every call, since they arrive from callers and from notifications).
 */
import { ConfigError } from '../core/errors.js';

/** The entries table when `table` is not given; the lease table is `<table>_lease`. */
export const DEFAULT_TABLE = 'rulvar_journal';

/** 40 characters leave room for the suffixes below within Postgres's 63-byte identifiers. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

export interface TableNames {
  /** As configured, for messages. */
  readonly name: string;
  /** Quoted identifiers, ready for SQL. */
  readonly entries: string;
  readonly leases: string;
  readonly runsIndex: string;
  readonly expiryIndex: string;
  /** Unquoted, for `to_regclass` and messages. */
  readonly entriesName: string;
  readonly leasesName: string;
  /** The NOTIFY channel: the table's own name, so two journals in one database never share one. */
  readonly channel: string;
}

export function tableNames(table: unknown): TableNames {
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    const shown = typeof table === 'string' ? JSON.stringify(table.slice(0, 80)) : `a ${typeof table}`;
    throw new ConfigError('config.invalid_value', `postgresJournal: table must be 1 to 40 lowercase letters, digits or _ (not starting with a digit), not ${shown}`);
  }
  const quote = (name: string) => `"${name}"`;
  return {
    name: table,
    entries: quote(table),
    leases: quote(`${table}_lease`),
    runsIndex: quote(`${table}_runs`),
    expiryIndex: quote(`${table}_lease_expiry`),
    entriesName: table,
    leasesName: `${table}_lease`,
    channel: table,
  };
}

/** Longest run id or holder, in characters: the Durable Object journal's limit, so a run id fits both. */
export const MAX_ID_LENGTH = 128;

/**
 * Control characters make ids unreadable in any tool that shows them, NUL cannot be stored
 * in a Postgres text, and an unpaired surrogate becomes U+FFFD on the way in, so two such ids
 * would be one row.
 */
const UNFIT_IN_ID = /[\p{Cc}\p{Cs}]/u;

export function isFitId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH && !UNFIT_IN_ID.test(id);
}

/** Refuses a run id (or, with `what`, a holder) the store could not keep apart from others. */
export function checkId(id: unknown, what = 'run id'): string {
  if (isFitId(id)) return id;
  const shown = typeof id === 'string' ? `one of ${id.length} characters ${JSON.stringify(id.slice(0, 40))}` : `a ${typeof id}`;
  throw new ConfigError('config.invalid_value', `postgresJournal needs a ${what} of 1 to ${MAX_ID_LENGTH} characters without control characters or unpaired surrogates, not ${shown}`);
}
