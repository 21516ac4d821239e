/**
 * The file system calls the file journal makes, behind one small interface, so a test can
 * make one of them fail (a full disk on the write, EIO on the fsync) or hang (a process that
 * dies holding the lock) without a real broken disk. `nodeJournalFs` is the only real one.
 *
 * The journal directory is hostile ground: whoever can write to it can put anything at a run
 * or lock path. So every file the journal opens is opened without following a symlink and
 * without blocking (O_NOFOLLOW, O_NONBLOCK: a FIFO would otherwise hold a libuv thread until
 * a writer came, and four of them stall every file operation of the process), and is checked
 * to be a regular file before anything is read from or written to it (own-files.ts).
 */
import { constants, lstatSync } from 'node:fs';
import { link, lstat, mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import process from 'node:process';
import { openOwnFile } from './own-files.js';

/** An open run file. Positions are byte offsets; reads and writes never move a shared cursor. */
export interface JournalFile {
  /** Size in bytes and identity (a replaced file is a different `dev`:`ino`). */
  stat(): Promise<{ readonly size: number; readonly identity: string }>;
  /** Reads into `buffer` from `position`; returns the bytes read (0 at the end). */
  read(buffer: Uint8Array, position: number): Promise<number>;
  /** Writes `data` at `position`; returns the bytes written, which may be fewer. */
  write(data: Uint8Array, position: number): Promise<number>;
  truncate(length: number): Promise<void>;
  /** fdatasync: the data and what reading it back needs (the size), not the timestamps. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** A small file this process made and keeps open: a lock it holds. */
export interface HeldFile {
  readonly identity: string;
  /** Sets its modification time (a lease's renewal), through the handle: wherever its names are now. */
  touch(at: number): Promise<void>;
  close(): Promise<void>;
}

export interface JournalFs {
  /** Creates `dir` and its missing parents; resolves to the outermost one it created, if any. */
  mkdirs(dir: string): Promise<string | undefined>;
  /** An existing regular file for reading; rejects ENOENT when there is none. */
  openExisting(path: string): Promise<JournalFile>;
  /**
   * A regular file for reading and writing; `created` says whether this call made the file.
   * With `create` false, a missing file rejects ENOENT instead (an append that would write nothing).
   */
  openOrCreate(path: string, create?: boolean): Promise<{ readonly file: JournalFile; readonly created: boolean }>;
  /** Makes a directory's entries (a newly created file's name) durable. */
  syncDir(dir: string): Promise<void>;
  /** A new file holding `text`, kept open; rejects EEXIST when `path` exists, whatever it is. */
  createExclusive(path: string, text: string): Promise<HeldFile>;
  /** The first `maxBytes` of the regular file at `path`, and when it was last modified; rejects ENOENT when there is none. */
  readText(path: string, maxBytes: number): Promise<{ readonly text: string; readonly modifiedAt: number; readonly identity: string }>;
  /** The identity of whatever is at `path` (a symlink's own), or undefined when nothing is. */
  identityOf(path: string): Promise<string | undefined>;
  /** Whether anything is at `path`; synchronous, as it runs on a poll timer (a cached lookup, no I/O thread). */
  presentSync(path: string): boolean;
  /** The names in `dir`; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  /** A second name for `existing`; rejects EEXIST when `target` exists (atomic). */
  link(existing: string, target: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

function wrap(handle: FileHandle): JournalFile {
  return {
    async stat() {
      const stats = await handle.stat();
      return { size: stats.size, identity: `${stats.dev}:${stats.ino}` };
    },
    read: async (buffer, position) => (await handle.read(buffer, 0, buffer.byteLength, position)).bytesRead,
    write: async (data, position) => (await handle.write(data, 0, data.byteLength, position)).bytesWritten,
    truncate: (length) => handle.truncate(length),
    sync: () => handle.datasync(),
    close: () => handle.close(),
  };
}

export const nodeJournalFs: JournalFs = {
  mkdirs: (dir) => mkdir(dir, { recursive: true }),
  openExisting: async (path) => wrap(await openOwnFile(path, constants.O_RDONLY, true)),
  async openOrCreate(path, create = true) {
    // Not O_APPEND: the journal writes at the end of the last whole line, over a torn tail.
    // Open, else create, else open again: something may appear at the path between the two.
    for (let attempt = 0; ; attempt += 1) {
      try {
        return { file: wrap(await openOwnFile(path, constants.O_RDWR, true)), created: false };
      } catch (error) {
        if (codeOf(error) !== 'ENOENT' || !create) throw error;
      }
      try {
        return { file: wrap(await openOwnFile(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, true)), created: true };
      } catch (error) {
        if (codeOf(error) !== 'EEXIST' || attempt >= 2) throw error;
      }
    }
  },
  async syncDir(dir) {
    // Windows cannot open a directory for fsync, and NTFS journals the new name itself.
    if (process.platform === 'win32') return;
    const handle = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async createExclusive(path, text) {
    const handle = await openOwnFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    try {
      await handle.writeFile(text);
      const stats = await handle.stat();
      return {
        identity: `${stats.dev}:${stats.ino}`,
        touch: (at) => handle.utimes(at / 1000, at / 1000),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  },
  async readText(path, maxBytes) {
    const handle = await openOwnFile(path, constants.O_RDONLY);
    try {
      const buffer = new Uint8Array(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      const stats = await handle.stat();
      return { text: new TextDecoder().decode(buffer.subarray(0, bytesRead)), modifiedAt: stats.mtimeMs, identity: `${stats.dev}:${stats.ino}` };
    } finally {
      await handle.close();
    }
  },
  async identityOf(path) {
    try {
      const stats = await lstat(path);
      return `${stats.dev}:${stats.ino}`;
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
  },
  presentSync: (path) => lstatSync(path, { throwIfNoEntry: false }) !== undefined,
  async list(dir) {
    try {
      return await readdir(dir);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return [];
      throw error;
    }
  },
  link,
  rename,
  unlink,
};

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function codeOf(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
