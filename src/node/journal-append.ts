/**
 * Writing one append at the end of a run file, the same under a short holding of the lock and
 * under a lease: cut off a torn tail past the end of the last whole line, write the append
 * there (one positional write, continued only if the disk takes less), fdatasync the file, and
 * only then count it. A write or sync that fails is cut back off before the error is reported,
 * so nothing is half applied.
 *
 * Names (Naming): a run file's name is durable only once its directory is fsync'd, and the
 * directory's own once its parent is. Every writer syncs the directory before it writes the
 * first bytes of an empty run file, so a run file with anything in it has a durable name: a
 * writer that finds content (a new process resuming a run) syncs nothing, and a file left empty
 * by a creator killed before its first write is synced by whoever writes to it first. The
 * directory's name is synced (the parent of `dir` and of every directory made for it) before a
 * marker file, `.rulvar-dir`, is made in it; a directory with the marker needs no sync.
 */
import path from 'node:path';
import { codeOf, type JournalFile, type JournalFs } from './journal-fs.js';
import type { EncodedAppend } from './journal-encode.js';
import type { LinePosition } from './journal-lines.js';

/** Present in `dir` only once `dir`'s own name was made durable. */
export const DIR_MARKER = '.rulvar-dir';

export class Naming {
  /** Whether `dir`'s own name is known durable, so nothing need be synced for it. */
  private dirNamed = false;

  constructor(
    private readonly fs: JournalFs,
    private readonly dir: string,
  ) {}

  /** Creates `dir` if it is missing and makes its name durable; every time, as a removed directory comes back. */
  async ensureDir(): Promise<void> {
    const made = await this.fs.mkdirs(this.dir);
    if (made !== undefined) this.dirNamed = false;
    if (this.dirNamed) return;
    const marker = path.join(this.dir, DIR_MARKER);
    if (made === undefined && this.fs.presentSync(marker)) {
      this.dirNamed = true;
      return;
    }
    // The parent of every directory from dir's up to the outermost one made (or dir's own
    // parent when it existed: another process may have made it and died before syncing).
    const top = path.dirname(made ?? this.dir);
    for (let parent = path.dirname(this.dir); ; parent = path.dirname(parent)) {
      await this.fs.syncDir(parent);
      if (parent === top || parent === path.dirname(parent)) break;
    }
    try {
      await (await this.fs.createExclusive(marker, '')).close();
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    // Set only once it held: a failed sync is tried again by the next append.
    this.dirNamed = true;
  }

  /** Makes the names in `dir` durable: before the first bytes of an empty run file. */
  syncDir(): Promise<void> {
    return this.fs.syncDir(this.dir);
  }
}

/**
 * Writes `encoded` at `end` in a file of `size` bytes; resolves with the end after it. The
 * caller checked `expectedLength` against `end` and that the lock is its own.
 */
export async function appendAt(file: JournalFile, size: number, end: LinePosition, encoded: EncodedAppend, count: number, naming: Naming): Promise<LinePosition> {
  // Content means a durable name: an empty file's name is synced before its first bytes.
  if (size === 0) await naming.syncDir();
  if (end.offset < size) await file.truncate(end.offset);
  try {
    for (let done = 0; done < encoded.bytes.byteLength; ) {
      const wrote = await file.write(encoded.bytes.subarray(done), end.offset + done);
      if (wrote <= 0) throw new Error('the file system accepted no bytes');
      done += wrote;
    }
    await file.sync();
  } catch (error) {
    // Nothing half-applied: cut back to where the append began.
    await file.truncate(end.offset).catch(() => undefined);
    throw error;
  }
  return { offset: end.offset + encoded.bytes.byteLength, lines: end.lines + encoded.lines, entries: end.entries + count };
}
