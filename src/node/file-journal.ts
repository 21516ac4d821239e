/**
 * `fileJournal({ dir })`: one append-only JSONL file per run, `<dir>/<runId>.jsonl`, one line
 * per append, or a batch of lines for one too large for a line (journal-lines.ts says why a
 * batch is one line, how a larger one stays atomic, and what a torn tail is).
 *
 * Two ways to write a run, both under its lock (journal-lock.ts, a file made with link(2)):
 *   - a lease (`claim`, journal-lease.ts): the engine working the run holds the lock for the
 *     run's life with the file open; each append is one positional write and one fdatasync;
 *   - a short holding (`append` and `load` of a run nobody holds): take the lock, find the end
 *     of the last whole line and count the entries before it, refuse with `journal.conflict`
 *     unless that count is `expectedLength`, check the lock is still ours, write at that end
 *     (journal-append.ts), release. A run a live lease holds is appended through its holder's
 *     inbox (journal-inbox.ts) and loaded without the lock (up to the last whole line).
 * Why it holds on Linux and macOS (local file systems): link(2) and rename(2) are atomic there,
 * so two processes never hold the lock at once (journal-lock.ts has the one residual race),
 * and every check-then-write happens inside a holding. A line is in the journal only once it
 * is whole, newline included, so a crash at any point leaves all of an append or none of it.
 * On macOS, fsync hands the data to the drive, which may still cache it (F_FULLFSYNC is not
 * reachable from Node): a crash of the process or the kernel loses nothing, a power cut can
 * lose appends the drive had not written yet, or, if it wrote them out of order, leave a
 * damaged line that a load reports as `journal.corrupt`. NFS and other network file systems
 * are out of scope: their link, rename and fsync do not promise the same.
 *
 * Finding the end is cheap: each journal remembers, per run, the end it last saw under the
 * lock and the file's identity. Bytes before a whole-line end never change (everyone appends
 * at that end under the lock and cuts only what lies past it), so on the same file only what
 * follows a remembered end is read. A different file (replaced) or a shorter one (cut outside
 * the protocol) is read whole.
 */
import path from 'node:path';
import { ConfigError, RulvarError } from '../core/errors.js';
import { checkLeaseRequest, runClaimed } from '../core/journal/lease-errors.js';
import type { FileJournalOptions, JournalLease, JournalStore } from '../core/journal/store.js';
import { Naming } from './journal-append.js';
import { encodeAppend } from './journal-encode.js';
import { settle, unavailableOnFailure } from './journal-errors.js';
import { nodeJournalFs, type JournalFs } from './journal-fs.js';
import { INBOX_POLL_MS, bellOf, serveInbox, submitToInbox } from './journal-inbox.js';
import { FileLease } from './journal-lease.js';
import { LOCK_WAIT_MS, acquire, isHeld, peekHolding } from './journal-lock.js';
import { checkRunId, isRunId } from './journal-run-id.js';
import { ShortHoldings } from './journal-short.js';

export function fileJournal(options: FileJournalOptions): JournalStore {
  return createFileJournal(options, nodeJournalFs);
}

/** `fileJournal` over any JournalFs: tests hand it one that fails or hangs on purpose. */
export function createFileJournal(options: FileJournalOptions, fs: JournalFs): JournalStore {
  if (typeof options?.dir !== 'string' || options.dir === '') {
    throw new ConfigError('config.invalid_value', 'fileJournal needs { dir }: the directory that holds its run files');
  }
  const dir = path.resolve(options.dir);
  const naming = new Naming(fs, dir);
  const runPath = (runId: string) => path.join(dir, `${runId}.jsonl`);
  const lockOf = (runId: string) => `${runPath(runId)}.lock`;
  const short = new ShortHoldings(fs, naming, runPath);
  /** The leases this journal holds, by run: their inboxes are polled while there are any. */
  const leases = new Map<string, FileLease>();
  const serving = new Map<string, Promise<void>>();
  let poll: ReturnType<typeof setInterval> | undefined;
  const queues = new Map<string, Promise<unknown>>();

  /** One operation per run at a time in this journal; the lock orders them across processes. */
  const inTurn = <T>(runId: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(runId) ?? Promise.resolve()).then(() => unavailableOnFailure(runId, work));
    const tail = next.then(ignore, ignore);
    queues.set(runId, tail);
    void tail.then(() => queues.get(runId) === tail && queues.delete(runId));
    return next;
  };

  const stayedLocked = (runId: string) => new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} stayed locked by another process for ${LOCK_WAIT_MS} ms`);

  /** Serves a held run's inbox through its lease: a request is appended like any other append of the run. */
  const serveLeased = (lease: FileLease): Promise<void> => {
    const running = serving.get(lease.runId);
    if (running !== undefined) return running;
    const served = serveInbox(fs, runPath(lease.runId), (entries, expectedLength, recovered) => lease.appendOrAnswer(entries, expectedLength, recovered))
      .catch(ignore)
      .finally(() => serving.delete(lease.runId));
    serving.set(lease.runId, served);
    return served;
  };
  /** Before a lease goes: what rang since the last poll is served by it rather than left to its writers. */
  const drain = async (lease: FileLease) => {
    await serving.get(lease.runId);
    if (fs.presentSync(bellOf(runPath(lease.runId)))) await serveLeased(lease);
  };

  /** For a writer waiting on the inbox: serve it under a short holding when the lock is free or stale. */
  const serveIfFree = (runId: string) => async (): Promise<boolean> => {
    if ((await peekHolding(fs, lockOf(runId))) !== undefined) return false;
    const got = await acquire(fs, lockOf(runId), 0);
    if (!isHeld(got)) return false;
    try {
      await serveInbox(fs, runPath(runId), (entries, expectedLength, recovered) => short.appendOrAnswer(runId, got, entries, expectedLength, recovered));
    } finally {
      await got.release();
    }
    return true;
  };

  const leaseEnded = (lease: FileLease) => {
    if (leases.get(lease.runId) === lease) leases.delete(lease.runId);
    if (leases.size === 0 && poll !== undefined) {
      clearInterval(poll);
      poll = undefined;
    }
  };

  return {
    // async, so that a refused run id is a rejection like every other failure, not a throw.
    async load(runId) {
      const id = checkRunId(runId);
      return inTurn(id, () => short.load(id, lockOf(id), stayedLocked));
    },

    async append(runId, entries, expectedLength) {
      const id = checkRunId(runId);
      const encoded = encodeAppend(id, entries);
      const lease = leases.get(id);
      // This journal holds the run: the append goes through the lease (unless it was lost meanwhile).
      if (lease?.live === true) {
        const answer = await lease.appendOrAnswer(entries, expectedLength, false).catch((error: unknown) => (RulvarError.is(error) && error.code === 'run.lease_lost' ? undefined : Promise.reject(error)));
        if (answer !== undefined) return settle(id, answer, expectedLength);
      }
      return inTurn(id, async () => {
        await naming.ensureDir();
        const got = await acquire(fs, lockOf(id), LOCK_WAIT_MS);
        if (isHeld(got)) {
          try {
            return settle(id, await short.appendLocked(id, got, encoded, entries.length, expectedLength), expectedLength);
          } finally {
            await got.release();
          }
        }
        if (!got.lease) throw stayedLocked(id);
        if (encoded === undefined) return settle(id, await short.lengthUnlocked(id, expectedLength), expectedLength);
        await submitToInbox(fs, runPath(id), id, entries, expectedLength, serveIfFree(id));
      });
    },

    async claim(runId, request) {
      const id = checkRunId(runId);
      const { holder, ms } = checkLeaseRequest(request);
      const held = leases.get(id);
      if (held?.live === true && held.holder !== holder) throw runClaimed(id);
      return inTurn(id, async (): Promise<JournalLease> => {
        // Each claim is a hold of its own: the same holder claiming again fences its earlier lease off.
        if (held?.live === true) await held.release();
        await naming.ensureDir();
        const takenAt = Date.now();
        const got = await acquire(fs, lockOf(id), LOCK_WAIT_MS, ms);
        if (!isHeld(got)) throw got.lease ? runClaimed(id) : stayedLocked(id);
        const lease = await FileLease.open({ fs, runId: id, runPath: runPath(id), naming, drain, ended: leaseEnded }, got, holder, ms, takenAt);
        leases.set(id, lease);
        poll ??= unrefd(setInterval(() => {
          for (const held of leases.values()) if (held.live && fs.presentSync(bellOf(runPath(held.runId)))) void serveLeased(held);
        }, INBOX_POLL_MS));
        // Requests that waited for the lock while it changed hands.
        if (fs.presentSync(bellOf(runPath(id)))) void serveLeased(lease);
        return lease;
      });
    },

    async runs() {
      const names = await unavailableOnFailure('(any)', () => fs.list(dir));
      return names.flatMap((name) => (name.endsWith('.jsonl') && isRunId(name.slice(0, -'.jsonl'.length)) ? [name.slice(0, -'.jsonl'.length)] : [])).sort();
    },
  };
}

/** Never keeps the process alive on its own. */
function unrefd<T extends { unref?: () => unknown }>(timer: T): T {
  timer.unref?.();
  return timer;
}

const ignore = (): void => undefined;

