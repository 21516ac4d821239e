/**
 * An exclusive lock on one run file, held across processes: for the few milliseconds of a
 * check-and-append or a load (a short holding), or for as long as an engine works the run (a
 * lease, journal-lease.ts). The lock is a file next to the run file whose content names its
 * holder: `pid`, when it was taken, a random nonce that makes each holding unique, and for a
 * lease `lease <ms>`.
 *
 * Taking it: the holder's content is written to a private temporary file first, which is then
 * hard-linked to the lock's name. link(2) fails with EEXIST when the name exists, atomically,
 * so at most one process gets it, and a lock file is never seen empty or half written. The
 * holder keeps the file open: its identity says whether the lock's name still points at this
 * holding, and a lease renews by setting its modification time through the handle.
 *
 * Stale locks: a holder killed with SIGKILL leaves its lock behind. It is stale when its pid
 * is gone (`process.kill(pid, 0)`); a short holding also when it is older than STALE_AFTER_MS,
 * far longer than any holding (a reused pid, a zombie nobody reaps); a lease when it was not
 * renewed (its mtime) for its `ms`. Breaking one is a rename to a private name, then a check
 * that the renamed file is still the one judged stale (same content, same mtime: a lease
 * renewed meanwhile is put back). What is left is a triple race (a stale holder, two breakers
 * and a new taker within the same few microseconds) in which two processes could both hold
 * the lock; each holder checks before it writes that the lock is still its own.
 *
 * Whatever sits at the lock path that is not a regular file (a symlink, a FIFO, a socket, a
 * directory) was not made by this protocol: it is `journal.unavailable` naming the path at
 * once, neither waited on nor broken (own-files.ts).
 */
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { codeOf, type HeldFile, type JournalFs } from './journal-fs.js';

/** How long a caller waits for a short holding to end before `journal.unavailable`. */
export const LOCK_WAIT_MS = 5_000;
/** A short holding this old is stale whatever its pid says: holdings last milliseconds. */
export const STALE_AFTER_MS = 30_000;
/** A token is a line of a few dozen bytes; a file holding more is not one of ours (and is stale). */
const MAX_TOKEN_BYTES = 256;

/** A live holder that kept the lock from us: a lease (an engine working the run) or a short holding. */
export interface Holding {
  readonly lease: boolean;
}

/** The lock, held by this process. */
export interface HeldLock {
  /** Whether the lock's name still points at this holding (it may have been broken as stale). */
  isOurs(): Promise<boolean>;
  /** Renews a lease: its mtime is what others judge it by. */
  touch(at: number): Promise<void>;
  /**
   * Removes the lock if it is still this holding's; never rejects. `mayBeStale` (a lease not
   * renewed lately) moves it aside first, so a lock another process took meanwhile is put back.
   */
  release(mayBeStale?: boolean): Promise<void>;
}

/**
 * Takes the lock at `lockPath`, breaking stale holdings on the way. Waits up to `waitMs` while
 * a short holding has it; returns the live Holding instead when a lease has it, or when the
 * wait is over. `leaseMs` makes this holding a lease of that length.
 */
export async function acquire(fs: JournalFs, lockPath: string, waitMs: number, leaseMs?: number): Promise<HeldLock | Holding> {
  const mine = privateName(lockPath, '');
  const token = `${process.pid} ${Date.now()} ${randomUUID()}${leaseMs === undefined ? '' : ` lease ${leaseMs}`}`;
  const file = await fs.createExclusive(mine, token);
  let taken = false;
  try {
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await fs.link(mine, lockPath);
        taken = true;
        return held(fs, lockPath, file);
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      const holding = await breakIfStale(fs, lockPath);
      if (holding === undefined) continue;
      if (holding.lease || Date.now() >= deadline) return holding;
      // Short at first (holdings are an fsync long), then up to 20 ms; jitter keeps waiters apart.
      await sleep(Math.min(20, 1 + attempt) * (0.5 + Math.random()));
    }
  } finally {
    await fs.unlink(mine).catch(ignore);
    if (!taken) await file.close().catch(ignore);
  }
}

export const isHeld = (got: HeldLock | Holding): got is HeldLock => 'release' in got;

/** Who holds the lock at `lockPath` while that holder is live; undefined when it is free or stale. Breaks nothing. */
export async function peekHolding(fs: JournalFs, lockPath: string): Promise<Holding | undefined> {
  const seen = await readLock(fs, lockPath);
  return seen === undefined ? undefined : liveHolding(seen.text, seen.modifiedAt);
}

/**
 * A file name of this holding's own, next to `lockPath` (same directory, so link works). Random
 * rather than counted: two copies of this module in one process (two bundles) share a pid.
 */
const privateName = (lockPath: string, suffix: string) => `${lockPath}.${process.pid}.${randomUUID()}${suffix}`;

function held(fs: JournalFs, lockPath: string, file: HeldFile): HeldLock {
  let released = false;
  const isOurs = async () => (await fs.identityOf(lockPath).catch(() => undefined)) === file.identity;
  return {
    isOurs,
    touch: (at) => file.touch(at),
    async release(mayBeStale = false) {
      if (released) return;
      released = true;
      try {
        if (!mayBeStale) {
          if (await isOurs()) await fs.unlink(lockPath);
          return;
        }
        const aside = privateName(lockPath, '.released');
        await fs.rename(lockPath, aside);
        if ((await fs.identityOf(aside)) !== file.identity) await fs.link(aside, lockPath).catch(ignore);
        await fs.unlink(aside);
      } catch {
        // Gone already, or the directory is: nothing of ours is left to remove.
      } finally {
        await file.close().catch(ignore);
      }
    },
  };
}

/** Undefined when the lock was stale and is now gone (or was gone already): try again at once. */
async function breakIfStale(fs: JournalFs, lockPath: string): Promise<Holding | undefined> {
  const seen = await readLock(fs, lockPath);
  if (seen === undefined) return undefined;
  const holding = liveHolding(seen.text, seen.modifiedAt);
  if (holding !== undefined) return holding;
  const aside = privateName(lockPath, '.stale');
  try {
    await fs.rename(lockPath, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  // Someone broke it first and a live process took the lock since, or the lease was renewed
  // between the judging and the rename: give that one back.
  const moved = await readLock(fs, aside);
  if (moved !== undefined && (moved.text !== seen.text || moved.modifiedAt !== seen.modifiedAt)) await fs.link(aside, lockPath).catch(ignore);
  await fs.unlink(aside).catch(ignore);
  return undefined;
}

/** Who holds the lock, when that holder is live; undefined when the holding is stale. */
function liveHolding(token: string, modifiedAt: number): Holding | undefined {
  const [pid, at, , kind, ms] = token.split(' ');
  const [pidNumber, atNumber, msNumber] = [Number(pid), Number(at), Number(ms)];
  // Not a token we write: nothing holds it in this protocol.
  if (!Number.isSafeInteger(pidNumber) || pidNumber <= 0 || !Number.isFinite(atNumber)) return undefined;
  if (!isRunning(pidNumber)) return undefined;
  if (kind === 'lease') return Number.isFinite(msNumber) && Date.now() - modifiedAt <= msNumber ? { lease: true } : undefined;
  return Date.now() - atNumber <= STALE_AFTER_MS ? { lease: false } : undefined;
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

async function readLock(fs: JournalFs, path: string): Promise<{ text: string; modifiedAt: number } | undefined> {
  try {
    return await fs.readText(path, MAX_TOKEN_BYTES);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

const ignore = (): void => undefined;
