/**
 * Opening a file of the journal's own: whoever can write to the journal directory can put a
 * symlink there (to a token file the journal would then truncate and overwrite), a FIFO (an
 * open that never returns, holding one of libuv's four threads), a socket, a device or a
 * directory. The journal only ever uses regular files it made, so it opens with O_NOFOLLOW
 * (a symlink at the path is refused, not followed) and O_NONBLOCK (a FIFO opens at once
 * instead of waiting for a writer), then checks the opened thing is a regular file before
 * reading or writing a byte of it. Anything else is `journal.unavailable` naming the path.
 *
 * Directories on the way to the path are followed: `dir` itself is the host's choice.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { RulvarError } from '../core/errors.js';

// Windows has neither flag (nor FIFOs): 0 leaves the open as it was.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * `open(path, flags)` for a regular file only; ENOENT and EEXIST come through as they are.
 * With `soleName` (run files), a file with a second name (a hard link, maybe to a file outside
 * the directory) is refused too: the journal reads and writes only files that are nowhere else.
 */
export async function openOwnFile(path: string, flags: number, soleName = false): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const what = KIND_OF_ERROR[(error as { code?: unknown } | null)?.code as string];
    if (what !== undefined) throw notOwnFile(path, what);
    throw error;
  }
  let kind: string | undefined;
  try {
    kind = kindOf(await handle.stat(), soleName);
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (kind === undefined) return handle;
  await handle.close();
  throw notOwnFile(path, kind);
}

/** What an open refused with says is at the path. */
const KIND_OF_ERROR: Readonly<Record<string, string>> = {
  // O_NOFOLLOW on a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD.
  ELOOP: 'a symbolic link',
  EMLINK: 'a symbolic link',
  // A socket, or a FIFO opened for writing with no reader.
  ENXIO: 'a socket or a FIFO',
  EOPNOTSUPP: 'a socket',
  EISDIR: 'a directory',
};

/** Undefined for a regular file; what it is otherwise. */
function kindOf(stats: Stats, soleName: boolean): string | undefined {
  if (stats.isFile()) return soleName && stats.nlink > 1 ? `a file with ${stats.nlink} names (a hard link)` : undefined;
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function notOwnFile(path: string, what: string): RulvarError {
  return new RulvarError('journal.unavailable', `the journal will not use ${JSON.stringify(path)}: it is ${what}, not a regular file of its own (nothing was read from or written to it)`);
}
