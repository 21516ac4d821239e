/**
 * The file system calls the file journal makes, behind one small interface, so a test can
 * make one of them fail (a full disk on the write, EIO on the fsync) or hang (a process that
 * dies holding the lock) without a real broken disk. `nodeJournalFs` is the only real one.
 */
import { constants } from 'node:fs';
import { link, mkdir, open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import process from 'node:process';

/** An open run file. Positions are byte offsets; reads and writes never move a shared cursor. */
export interface JournalFile {
  /** Size in bytes and identity (a replaced file is a different `dev`:`ino`). */
  stat(): Promise<{ readonly size: number; readonly identity: string }>;
  /** Reads into `buffer` from `position`; returns the bytes read (0 at the end). */
  read(buffer: Uint8Array, position: number): Promise<number>;
  /** Writes `data` at `position`; returns the bytes written, which may be fewer. */
  write(data: Uint8Array, position: number): Promise<number>;
  truncate(length: number): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalFs {
  /** Creates `dir` and its missing parents; resolves to the outermost one it created, if any. */
  mkdirs(dir: string): Promise<string | undefined>;
  /** An existing file for reading; rejects ENOENT when there is none. */
  openExisting(path: string): Promise<JournalFile>;
  /** For reading and writing; `created` says whether this call made the file. */
  openOrCreate(path: string): Promise<{ readonly file: JournalFile; readonly created: boolean }>;
  /** Makes a directory's entries (a newly created file's name) durable. */
  syncDir(dir: string): Promise<void>;
  writeText(path: string, text: string): Promise<void>;
  readText(path: string): Promise<string>;
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
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
}

export const nodeJournalFs: JournalFs = {
  mkdirs: (dir) => mkdir(dir, { recursive: true }),
  openExisting: async (path) => wrap(await open(path, 'r')),
  async openOrCreate(path) {
    // Not O_APPEND: the journal writes at the end of the last whole line, over a torn tail.
    try {
      return { file: wrap(await open(path, constants.O_RDWR)), created: false };
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      return { file: wrap(await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL)), created: true };
    }
  },
  async syncDir(dir) {
    // Windows cannot open a directory for fsync, and NTFS journals the new name itself.
    if (process.platform === 'win32') return;
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  writeText: (path, text) => writeFile(path, text, { flag: 'w' }),
  readText: (path) => readFile(path, 'utf8'),
  link,
  rename,
  unlink,
};

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function codeOf(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
