/**
 * The store's statements as operations: each waits for the tables to be ready, runs its one
 * statement within the session's bound, and turns what the server refuses into the error
 * the JournalStore contract names (a lost compare-and-set is `journal.conflict`, an entry the
 * server cannot keep is `config.invalid_value`, anything else `journal.unavailable`).
 */
import { ConfigError, describeCause, RulvarError } from '../core/errors.js';
import type { TableNames } from './names.js';
import type { PostgresPoolClient } from './pool.js';
import type { BatchPart } from './rows.js';
import type { Session } from './session.js';
import { sqlState } from './session.js';
import type { Statements } from './statements.js';
import { prepareTables } from './schema.js';

export interface Queries {
  readonly sql: Statements;
  readonly tables: TableNames;
  readonly session: Session;
  /** The rows of `text`; `what` names the operation in messages. */
  rows(what: string, text: string, values: unknown[]): Promise<readonly Record<string, unknown>[]>;
  /**
   * Writes the parts of a batch of `runId` at `expectedLength`: the first through `text` (an
   * append statement with its checks; `valuesOf` gives its values for a part's text), the
   * others, when there are more, behind it in the same transaction. The first row of `text`
   * comes back, `inserted` counting every part's entries, or none when any part fell short.
   */
  appendRows(runId: string, expectedLength: number, text: string, valuesOf: (part: string) => unknown[], parts: readonly BatchPart[]): Promise<readonly Record<string, unknown>[]>;
  /** The `journal.conflict` of an append at `expectedLength`, saying how many entries the run holds. */
  conflict(runId: string, expectedLength: number): Promise<RulvarError>;
  /** Makes the tables now (otherwise the first operation does). */
  ready(): Promise<void>;
}

export function queries(tables: TableNames, sql: Statements, session: Session, named = true): Queries {
  let prepared: Promise<void> | undefined;
  // The store's own statements by name: the table's and the statement's (at most 62 bytes, under
  // Postgres's 63), so two stores on other tables of one pool never share a name. Anything
  // else (a count for a conflict's message) runs unnamed.
  const names = new Map<string, string>(named ? Object.entries(sql).map(([key, text]) => [text, `rulvar_${tables.name}_${key}`]) : []);
  const ready = () =>
    (prepared ??= session.use(`preparing table "${tables.name}"`, (client) => prepareTables(client, tables)).catch((error: unknown) => {
      // A failed first use is tried again by the next operation (the database may be back).
      prepared = undefined;
      throw error;
    }));

  const run = async (client: PostgresPoolClient, text: string, values: unknown[]) => {
    const name = names.get(text);
    const result = name === undefined ? await client.query(text, values) : await client.query({ name, text, values });
    return (Array.isArray(result?.rows) ? result.rows : []) as readonly Record<string, unknown>[];
  };
  const rows = async (what: string, text: string, values: unknown[], refused?: (error: unknown) => RulvarError | undefined) => {
    await ready();
    return session.use(what, async (client) => {
      try {
        return await run(client, text, values);
      } catch (error) {
        throw refused?.(error) ?? error;
      }
    });
  };

  /** Parts after the first, in the first's transaction: all of the batch lands, or none. */
  const partsInTransaction = async (client: PostgresPoolClient, runId: string, expectedLength: number, text: string, valuesOf: (part: string) => unknown[], parts: readonly BatchPart[]) => {
    const [head, ...rest] = parts;
    await client.query('BEGIN');
    try {
      const first = await run(client, text, valuesOf(head?.text ?? '[]'));
      let inserted = Number(first[0]?.['inserted']);
      let whole = inserted === head?.count;
      for (const part of rest) {
        if (!whole) break;
        const [row] = await run(client, sql.append, [runId, expectedLength + inserted, part.text]);
        whole = Number(row?.['inserted']) === part.count;
        inserted += part.count;
      }
      await client.query(whole ? 'COMMIT' : 'ROLLBACK');
      return [{ ...first[0], inserted: whole ? inserted : 0 }];
    } catch (error) {
      // A statement refused inside the transaction aborts it; the connection goes back clean.
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };

  const conflictOf = (runId: string, expectedLength: number, held?: number) =>
    new RulvarError(
      'journal.conflict',
      held === undefined
        ? `run ${JSON.stringify(runId)} does not hold the ${expectedLength} journal entries this append expected`
        : `run ${JSON.stringify(runId)} has ${held} journal entries, not the ${expectedLength} this append expected`,
    );

  const self: Queries = {
    sql,
    tables,
    session,
    rows: (what, text, values) => rows(what, text, values),
    async appendRows(runId, expectedLength, text, valuesOf, parts) {
      const what = `the append to run ${JSON.stringify(runId)}`;
      const refused = (error: unknown) => {
        const state = sqlState(error);
        // 23505: another append took a position first. Classes 22 and 54: the server cannot
        // keep an entry (nested deeper than its parser's stack, say); retrying cannot help.
        if (state === '23505') return conflictOf(runId, expectedLength);
        if (state?.startsWith('22') || state?.startsWith('54')) {
          return new ConfigError('config.invalid_value', session.clean(`postgresJournal: Postgres cannot store an entry of this append to run ${JSON.stringify(runId)} (${describeCause(error)})`));
        }
        return undefined;
      };
      try {
        const [first] = parts;
        if (parts.length === 1 && first !== undefined) return await rows(what, text, valuesOf(first.text), refused);
        await ready();
        return await session.use(what, async (client) => {
          try {
            return await partsInTransaction(client, runId, expectedLength, text, valuesOf, parts);
          } catch (error) {
            throw refused(error) ?? error;
          }
        });
      } catch (error) {
        // The conflict again, now saying how many entries the run holds.
        if (RulvarError.is(error) && error.code === 'journal.conflict') throw await self.conflict(runId, expectedLength);
        throw error;
      }
    },
    async conflict(runId, expectedLength) {
      try {
        const [row] = await rows(`counting the entries of run ${JSON.stringify(runId)}`, `SELECT count(*)::integer AS held FROM ${tables.entries} WHERE run_id = $1`, [runId]);
        const held = Number(row?.['held']);
        return conflictOf(runId, expectedLength, Number.isSafeInteger(held) ? held : undefined);
      } catch {
        // The count is only for the message: the conflict stands without it.
        return conflictOf(runId, expectedLength);
      }
    },
    ready,
  };
  return self;
}

/** Lengths the position column can hold; any other expectedLength can never match. */
export function isStorableLength(length: unknown): length is number {
  return typeof length === 'number' && Number.isInteger(length) && length >= 0 && length <= 2_147_483_647;
}
