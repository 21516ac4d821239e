/**
 * An exclusive lock on one run file, held across processes for the few milliseconds of a
 * check-and-append (or a load). The lock is a file next to the run file whose content names
 * its holder: `pid`, when it was taken, and a random nonce that makes each holding unique.
 *
 * Taking it: the holder's content is written to a private temporary file first, which is then
 * hard-linked to the lock's name. link(2) fails with EEXIST when the name exists, atomically,
 * so at most one process gets it, and a lock file is never seen empty or half written (as it
 * could be between an `open(O_CREAT|O_EXCL)` and the write after it, a gap a SIGKILL can land
 * in, leaving a lock nobody could tell from one being written).
 *
 * Stale locks: a holder killed with SIGKILL leaves its lock behind. A waiter treats it as stale
 * when its pid is gone (`process.kill(pid, 0)`), or when it is older than STALE_AFTER_MS, far
 * longer than any holding (that covers a reused pid, or a zombie nobody reaps). Breaking one
 * is a rename to a private name followed by a check that the renamed file is the one judged
 * stale; if another waiter broke it first and a live process took the lock since, the rename
 * moved the live lock, and it is linked back. What is left is a triple race (a dead holder,
 * two breakers and a new taker within the same few microseconds) in which two processes could
 * both hold the lock; the journal then still appends by position at the end of the last whole
 * line, so one of two such appends overwrites the other rather than both landing. A holder
 * whose lock was broken for its age checks, right before it writes, that the lock is still its
 * own (`stillHeld`), so a stall anywhere before that check costs its append, not another's.
 */
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { RulvarError } from '../core/errors.js';
import { codeOf, type JournalFs } from './journal-fs.js';

/** How long a caller waits for another holder before `journal.unavailable`. */
export const LOCK_WAIT_MS = 5_000;
/** A lock this old is stale whatever its pid says: holdings last milliseconds. */
export const STALE_AFTER_MS = 30_000;

/**
 * A file name of this holding's own, next to `lockPath` (same directory, so link works). Random
 * rather than counted: two copies of this module in one process (two bundles) share a pid.
 */
const privateName = (lockPath: string, suffix: string) => `${lockPath}.${process.pid}.${randomUUID()}${suffix}`;

/**
 * Runs `work` holding the lock at `lockPath`; `what` names the run in a timeout's message.
 * `stillHeld` rejects with `journal.unavailable` when the lock is no longer this holding's: a
 * holder stalled past STALE_AFTER_MS (a stopped process, a hung disk) has had it broken and
 * taken, and must not write at an end another holder may have moved since.
 */
export async function withLock<T>(fs: JournalFs, lockPath: string, what: string, work: (stillHeld: () => Promise<void>) => Promise<T>): Promise<T> {
  const token = `${process.pid} ${Date.now()} ${randomUUID()}`;
  await take(fs, lockPath, token, what);
  const stillHeld = async () => {
    if ((await readToken(fs, lockPath)) !== token) {
      throw new RulvarError('journal.unavailable', `the journal of ${what} lost its lock to another process while appending (held past ${STALE_AFTER_MS} ms); nothing was written`);
    }
  };
  try {
    return await work(stillHeld);
  } finally {
    await release(fs, lockPath, token);
  }
}

async function take(fs: JournalFs, lockPath: string, token: string, what: string): Promise<void> {
  const mine = privateName(lockPath, '');
  await fs.writeText(mine, token);
  try {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await fs.link(mine, lockPath);
        return;
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      if (await breakIfStale(fs, lockPath)) continue;
      if (Date.now() >= deadline) {
        throw new RulvarError('journal.unavailable', `the journal of ${what} stayed locked by another process for ${LOCK_WAIT_MS} ms`);
      }
      // Short at first (holdings are an fsync long), then up to 20 ms; jitter keeps waiters apart.
      await sleep(Math.min(20, 1 + attempt) * (0.5 + Math.random()));
    }
  } finally {
    await fs.unlink(mine).catch(ignore);
  }
}

/** True when the lock was stale and is now gone (or was gone already): try again at once. */
async function breakIfStale(fs: JournalFs, lockPath: string): Promise<boolean> {
  const seen = await readToken(fs, lockPath);
  if (seen === undefined) return true;
  if (!isStale(seen)) return false;
  const aside = privateName(lockPath, '.stale');
  try {
    await fs.rename(lockPath, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return true;
    throw error;
  }
  // Someone broke it first and a live process took the lock since: give that one back.
  if ((await readToken(fs, aside)) !== seen) await fs.link(aside, lockPath).catch(ignore);
  await fs.unlink(aside).catch(ignore);
  return true;
}

function isStale(token: string): boolean {
  const [pid, at] = token.split(' ').map(Number);
  // Not a token we write: nothing holds it in this protocol.
  if (pid === undefined || at === undefined || !Number.isSafeInteger(pid) || pid <= 0 || !Number.isFinite(at)) return true;
  return Date.now() - at > STALE_AFTER_MS || !isRunning(pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return codeOf(error) === 'EPERM';
  }
}

async function readToken(fs: JournalFs, path: string): Promise<string | undefined> {
  try {
    return await fs.readText(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes the lock if it is still ours (a waiter may have judged it stale and broken it). */
async function release(fs: JournalFs, lockPath: string, token: string): Promise<void> {
  if ((await readToken(fs, lockPath).catch(() => undefined)) === token) await fs.unlink(lockPath).catch(ignore);
}

const ignore = (): void => undefined;
