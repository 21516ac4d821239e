/**
 * `watch`: wakes on new work through LISTEN/NOTIFY. Every append and every lease release
 * notifies the table's channel with the run id; a dedicated client checked out of the pool
 * LISTENs and calls `wake` for each. An expired lease notifies nobody (its holder is gone),
 * so the same client sweeps the lease table every SWEEP_MS for leases that expired since the
 * last sweep, on the database's clock, each woken once.
 *
 * A dropped connection (a restart, a network cut, a sweep with no answer within the bound)
 * is destroyed and made again after a backoff from RETRY_MIN_MS doubling to RETRY_MAX_MS, for
 * as long as the signal has not aborted; notifications sent meanwhile are lost, so once the
 * client is back every run of the store is woken. After `signal` aborts nothing is woken and
 * the client is destroyed, also when it is only then being connected.
 */
import { withDeadline } from '../core/async.js';
import { isFitId } from './names.js';
import type { PostgresNotification, PostgresPool, PostgresPoolClient } from './pool.js';
import type { Queries } from './queries.js';
import { EXPIRED_PAGE } from './statements.js';

export const SWEEP_MS = 1_000;
export const RETRY_MIN_MS = 100;
export const RETRY_MAX_MS = 5_000;

const ignore = (): void => {};

export function watchRuns(q: Queries, pool: PostgresPool, wake: (runId: string) => void, signal: AbortSignal): void {
  if (typeof wake !== 'function' || signal?.aborted !== false) return;
  let client: PostgresPoolClient | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let missed = false;
  /** Where the last sweep stopped: (expires_at in µs, run id). */
  let watermark: [string, string] | undefined;

  const wakeRun = (runId: unknown) => {
    if (signal.aborted || !isFitId(runId)) return;
    try {
      wake(runId);
    } catch {
      // The caller's callback failing must not stop the watch for every other run.
    }
  };
  const onNotification = (message: PostgresNotification) => {
    if (message?.channel === q.tables.channel) wakeRun(message.payload);
  };
  const bounded = <T>(promise: Promise<T>) => withDeadline(promise, q.session.timeoutMs, () => new Error('no answer within the bound'));
  const later = (ms: number, then: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(then, ms);
    // The connection keeps a working process alive; a timer alone never should.
    (timer as { unref?: () => void }).unref?.();
  };

  function drop(which: PostgresPoolClient | undefined): void {
    if (which === undefined || which !== client) return;
    client = undefined;
    discard(which);
    missed = true;
    retry();
  }

  function discard(which: PostgresPoolClient): void {
    which.removeListener('notification', onNotification);
    // Error listeners stay (they drop nothing once it is not the client): a connection being
    // torn down may still report a socket error, which with no listener throws.
    which.on('error', ignore);
    try {
      which.release(true);
    } catch {
      // Released already.
    }
  }

  function retry(): void {
    if (signal.aborted) return;
    failures += 1;
    later(Math.min(RETRY_MIN_MS * 2 ** (failures - 1), RETRY_MAX_MS), () => void connect());
  }

  async function connect(): Promise<void> {
    let late = false;
    try {
      await q.ready();
      const connecting = pool.connect();
      connecting.then((c) => late && discard(c), ignore);
      const fresh = await withDeadline(connecting, q.session.timeoutMs, () => ((late = true), new Error('no client within the bound')));
      const dropFresh = () => drop(fresh);
      fresh.on('error', dropFresh);
      if (signal.aborted) return discard(fresh);
      client = fresh;
      fresh.on('end', dropFresh);
      fresh.on('notification', onNotification);
      await bounded(fresh.query(q.sql.listen));
      if (watermark === undefined) {
        const [row] = (await bounded(fresh.query(q.sql.now))).rows as { now?: unknown }[];
        watermark = [micros(row?.now), ''];
      }
      // Listening again: what was notified while this watch was not is lost, so every run may have work.
      if (missed) for (const row of await q.rows('listing the runs', q.sql.runs, [])) wakeRun(row['run_id']);
      if (client !== fresh) return;
      missed = false;
      failures = 0;
      later(SWEEP_MS, () => void sweep(fresh));
    } catch {
      if (client !== undefined) drop(client);
      else {
        missed = true;
        retry();
      }
    }
  }

  async function sweep(on: PostgresPoolClient): Promise<void> {
    try {
      for (let full = true; full && client === on && watermark !== undefined; ) {
        const rows = (await bounded(on.query(q.sql.expired, watermark))).rows as { now?: unknown; run_id?: unknown; at?: unknown }[];
        const expired = rows.filter((row) => row.run_id !== null && row.run_id !== undefined);
        for (const row of expired) wakeRun(row.run_id);
        full = expired.length === EXPIRED_PAGE;
        const last = expired.at(-1);
        watermark = full && last !== undefined ? [micros(last.at), String(last.run_id)] : [micros(rows[0]?.now), ''];
      }
      if (client === on) later(SWEEP_MS, () => void sweep(on));
    } catch {
      drop(on);
    }
  }

  /** A time as the statements give it (µs since the epoch, as text); anything else fails the sweep. */
  function micros(value: unknown): string {
    if (typeof value !== 'string' || !/^-?\d{1,19}$/.test(value)) throw new Error('not a time');
    return value;
  }

  signal.addEventListener(
    'abort',
    () => {
      clearTimeout(timer);
      const held = client;
      client = undefined;
      if (held !== undefined) discard(held);
    },
    { once: true },
  );
  void connect();
}
