/**
 * `claim`: a run's lease as a row (run, holder, expires_at) judged on the database's clock.
 * A claim takes the row when it is free, expired, or already the claiming holder's; every
 * write through the lease names its holder and checks, in the statement that writes, that
 * the row is still that holder's and live. So once another holder may have the run (the row
 * expired unrenewed, or was taken), the old lease's appends and renewals write nothing and
 * fail `run.lease_lost`. A holder that dies keeps the run at most `ms` past its last renewal.
 */
import { ConfigError, RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import type { JournalLease, LeaseRequest } from '../core/journal/store.js';
import { checkId } from './names.js';
import { isStorableLength, type Queries } from './queries.js';
import { batchParts, entriesOf } from './rows.js';

/** setTimeout's limit, and far more than any lease needs. */
const MAX_LEASE_MS = 2_147_483_647;

export async function claimRun(q: Queries, runId: string, request: LeaseRequest): Promise<JournalLease> {
  checkId(runId);
  const { holder: asked, ms } = (request ?? {}) as Partial<LeaseRequest>;
  const holder = checkId(asked, 'lease holder');
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_LEASE_MS) {
    throw new ConfigError('config.invalid_value', `postgresJournal: a lease lasts a whole number of milliseconds from 1 to ${MAX_LEASE_MS}, not ${typeof ms === 'number' ? ms : `a ${typeof ms}`}`);
  }
  const named = JSON.stringify(runId);
  const taken = await q.rows(`the claim of run ${named}`, q.sql.claim, [runId, holder, ms]);
  if (taken.length === 0) throw new RulvarError('run.claimed', `run ${named} is leased by another engine; it is free once that engine releases it or ${ms} ms after its last renewal at most`);

  const lost = () => new RulvarError('run.lease_lost', `the lease of run ${named} passed to another engine (it expired unrenewed or was taken); nothing was written`);
  const lease: JournalLease = {
    runId,
    holder,
    async load() {
      const rows = await q.rows(`the load of run ${named}`, q.sql.leasedLoad, [runId, holder]);
      if (rows[0]?.['leased'] !== true) throw lost();
      // One row of NULLs stands for a run with no entries yet.
      return rows.length === 1 && rows[0]['position'] === null ? [] : entriesOf(runId, rows);
    },
    async append(entries: JournalEntry[], expectedLength: number) {
      const parts = batchParts(runId, entries, isStorableLength(expectedLength) ? expectedLength : 0);
      if (!isStorableLength(expectedLength)) throw await q.conflict(runId, expectedLength);
      if (entries.length === 0) {
        const [row] = await q.rows(`the append to run ${named}`, q.sql.fencedLengthIs, [runId, expectedLength, holder]);
        if (row?.['leased'] !== true) throw lost();
        if (row['ok'] !== true) throw await q.conflict(runId, expectedLength);
        return;
      }
      const [row] = await q.appendRows(runId, expectedLength, q.sql.fencedAppend, (part) => [runId, expectedLength, part, holder], parts);
      if (Number(row?.['leased']) !== 1) throw lost();
      if (Number(row?.['inserted']) !== entries.length) throw await q.conflict(runId, expectedLength);
    },
    async renew() {
      const renewed = await q.rows(`the renewal of the lease of run ${named}`, q.sql.renew, [runId, holder, ms]);
      if (renewed.length === 0) throw lost();
    },
    async release() {
      try {
        await q.rows(`the release of the lease of run ${named}`, q.sql.release, [runId, holder]);
      } catch {
        // Never rejects: a release that cannot reach the database leaves the row to expire.
      }
    },
  };
  return Object.freeze(lease);
}
