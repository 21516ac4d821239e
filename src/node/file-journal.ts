/**
 * `fileJournal({ dir })`: one append-only JSONL file per run, `<dir>/<runId>.jsonl`, one line
 * per append (journal-lines.ts says why a batch is one line and what a torn tail is).
 *
 * The protocol, for every append and every load of an existing run:
 *   1. take the run's lock (journal-lock.ts): a file made with link(2), which is atomic;
 *   2. under it, find the end of the last whole line and count the entries before it;
 *   3. append: refuse with `journal.conflict` unless that count is `expectedLength`; check the
 *      lock is still ours (it may have been broken under a stalled holder); cut off a torn
 *      tail; write the line at that end (one positional write, continued only if the
 *      disk takes less); fsync the file, and the directory the first time this journal
 *      appends to that file (see below); only then resolve;
 *   4. release the lock.
 * Why it holds on Linux and macOS (local file systems): link(2) and rename(2) are atomic there,
 * so two processes never hold the lock at once (journal-lock.ts has the one residual race),
 * and every check-then-write happens inside a holding. A line is in the journal only once it
 * is whole, newline included, so a crash at any point leaves all of an append or none of it;
 * a write or fsync that fails is cut back off before the error is reported. On macOS, fsync
 * hands the data to the drive, which may still cache it (F_FULLFSYNC is not reachable from
 * Node): a crash of the process or the kernel loses nothing, a power cut can lose appends the
 * drive had not written yet, or, if it wrote them out of order, leave a damaged line that a
 * load reports as `journal.corrupt`. NFS and other network file systems are out of scope:
 * their link, rename and fsync do not promise the same.
 *
 * Step 2 is cheap: each journal remembers, per run, the end it last saw under the lock and the
 * file's identity. Bytes before a whole-line end never change (everyone appends at that end
 * under the lock and cuts only what lies past it), so on the same file a remembered end is
 * still a whole-line end with the same entries before it, and only what follows it is read.
 * A different file (replaced) or a shorter one (cut outside the protocol) is read whole.
 *
 * A run file's name is durable only once its directory is fsync'd. Doing that only when an
 * append creates the file is not enough: a process killed between creating it and syncing the
 * directory leaves a file whose name every later append would trust. So each journal syncs the
 * directory on its first append to a file (by identity), and on its first append at all the
 * parent of `dir` and of every directory it had to create, before that append resolves.
 */
import path from 'node:path';
import { ConfigError, RulvarError, describeCause } from '../core/errors.js';
import type { FileJournalOptions, JournalEntry, JournalStore } from '../core/engine/journal.js';
import { codeOf, nodeJournalFs, type JournalFile, type JournalFs } from './journal-fs.js';
import { MAX_LINE_BYTES, START_OF_FILE, isEntry, scanLines, type LinePosition } from './journal-lines.js';
import { withLock } from './journal-lock.js';
import { checkRunId } from './journal-run-id.js';

/** Runs whose last-seen end is remembered; past it, the least recently used is forgotten (and read whole next time). */
const REMEMBERED_RUNS = 1_024;

export function fileJournal(options: FileJournalOptions): JournalStore {
  return createFileJournal(options, nodeJournalFs);
}

/** `fileJournal` over any JournalFs: tests hand it one that fails or hangs on purpose. */
export function createFileJournal(options: FileJournalOptions, fs: JournalFs): JournalStore {
  if (typeof options?.dir !== 'string' || options.dir === '') {
    throw new ConfigError('config.invalid_value', 'fileJournal needs { dir }: the directory that holds its run files');
  }
  const dir = path.resolve(options.dir);
  const seen = new Map<string, { identity: string; end: LinePosition }>();
  /** Identities of run files whose name this journal made durable; bounded like `seen`. */
  const named = new Set<string>();
  /** Whether `dir`'s own name (and those of the directories this journal made) is synced yet. */
  let dirNamed = false;
  const queues = new Map<string, Promise<unknown>>();

  const remember = (runId: string, identity: string, end: LinePosition) => {
    seen.delete(runId);
    seen.set(runId, { identity, end });
    if (seen.size > REMEMBERED_RUNS) seen.delete(seen.keys().next().value as string);
  };

  /** The end of the file's last whole line, reading only what follows the remembered one. */
  const wholeEnd = async (runId: string, file: JournalFile, size: number, identity: string): Promise<LinePosition> => {
    const known = seen.get(runId);
    const from = known !== undefined && known.identity === identity && known.end.offset <= size ? known.end : START_OF_FILE;
    return from.offset === size ? from : (await scanLines(file, from, size, runId)).end;
  };

  /** One operation per run at a time in this process; the lock orders them across processes. */
  const inTurn = <T>(runId: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(runId) ?? Promise.resolve()).then(() => unavailableOnFailure(runId, work));
    const tail = next.then(ignore, ignore);
    queues.set(runId, tail);
    void tail.then(() => queues.get(runId) === tail && queues.delete(runId));
    return next;
  };

  const runPath = (runId: string) => path.join(dir, `${runId}.jsonl`);
  const lockOf = (runId: string) => `${runPath(runId)}.lock`;
  const nameOf = (runId: string) => `run ${JSON.stringify(runId)}`;

  return {
    // async, so that a refused run id is a rejection like every other failure, not a throw.
    async load(runId) {
      const id = checkRunId(runId);
      return inTurn(id, async () => {
        let file: JournalFile;
        try {
          file = await fs.openExisting(runPath(id));
        } catch (error) {
          if (codeOf(error) === 'ENOENT') return [];
          throw error;
        }
        try {
          return await withLock(fs, lockOf(id), nameOf(id), async () => {
            const { size, identity } = await file.stat();
            const { entries, end } = await scanLines(file, START_OF_FILE, size, id);
            remember(id, identity, end);
            return entries;
          });
        } finally {
          await file.close();
        }
      });
    },

    async append(runId, entries, expectedLength) {
      const id = checkRunId(runId);
      const line = encodeLine(id, entries);
      return inTurn(id, async () => {
        // Every time, not once: a directory removed under a long-lived process comes back.
        const madeDirs = await fs.mkdirs(dir);
        if (madeDirs !== undefined) dirNamed = false;
        if (!dirNamed) {
          // Set only once it held: a failed sync is tried again by the next append.
          await syncNewDirs(fs, madeDirs ?? dir, dir);
          dirNamed = true;
        }
        await withLock(fs, lockOf(id), nameOf(id), async (stillHeld) => {
          const { file, created } = await fs.openOrCreate(runPath(id));
          try {
            const { size, identity } = await file.stat();
            const end = await wholeEnd(id, file, size, identity);
            if (end.entries !== expectedLength) {
              throw new RulvarError('journal.conflict', `${nameOf(id)} has ${end.entries} journal entries, not the ${expectedLength} this append expected`);
            }
            if (line === undefined) return;
            await stillHeld();
            if (end.offset < size) await file.truncate(end.offset);
            try {
              await writeWhole(file, line, end.offset);
              await file.sync();
              if (created || !named.has(identity)) {
                await fs.syncDir(dir);
                named.add(identity);
                if (named.size > REMEMBERED_RUNS) named.delete(named.values().next().value as string);
              }
            } catch (error) {
              // Nothing half-applied: cut back to where the append began (and forget the end,
              // so a cut that failed too is found by the next read rather than trusted).
              seen.delete(id);
              await file.truncate(end.offset).catch(ignore);
              throw error;
            }
            remember(id, identity, { offset: end.offset + line.byteLength, lines: end.lines + 1, entries: end.entries + entries.length });
          } finally {
            await file.close();
          }
        });
      });
    },
  };
}

const encoder = new TextEncoder();

/** The append's one line (undefined for no entries); refused before any file is touched. */
function encodeLine(runId: string, entries: JournalEntry[]): Uint8Array | undefined {
  if (!Array.isArray(entries)) throw new ConfigError('config.invalid_value', `fileJournal: the entries appended to run ${JSON.stringify(runId)} must be a list`);
  if (entries.length === 0) return undefined;
  const wrong = entries.findIndex((entry) => !isEntry(entry));
  if (wrong >= 0) {
    throw new ConfigError('config.invalid_value', `fileJournal: entry ${wrong} appended to run ${JSON.stringify(runId)} is not a journal entry (an object with a number "v" and a string "type")`);
  }
  let text: string;
  try {
    text = JSON.stringify(entries.length === 1 ? entries[0] : entries);
  } catch (error) {
    throw new ConfigError('config.invalid_value', `fileJournal: the entries appended to run ${JSON.stringify(runId)} are not JSON (${describeCause(error)})`);
  }
  const line = encoder.encode(`${text}\n`);
  if (line.byteLength > MAX_LINE_BYTES) {
    throw new ConfigError('config.invalid_value', `fileJournal: an append to run ${JSON.stringify(runId)} is ${line.byteLength} bytes as JSON, over the ${MAX_LINE_BYTES} one journal line may hold`);
  }
  return line;
}

/**
 * A directory's name is durable once its parent is fsync'd: sync the parent of every directory
 * from `dir`'s up to the parent of `outermost` (the outermost one `mkdirs` created, or `dir`
 * itself when it existed: another process may have made it and died before syncing). `dir`
 * itself is synced once a run file is named in it.
 */
async function syncNewDirs(fs: JournalFs, outermost: string, dir: string): Promise<void> {
  const top = path.dirname(outermost);
  for (let parent = path.dirname(dir); ; parent = path.dirname(parent)) {
    await fs.syncDir(parent);
    if (parent === top || parent === path.dirname(parent)) return;
  }
}

/** write(2) may write less than asked (a nearly full disk); the rest follows until all is written. */
async function writeWhole(file: JournalFile, line: Uint8Array, offset: number): Promise<void> {
  for (let done = 0; done < line.byteLength; ) {
    const wrote = await file.write(line.subarray(done), offset + done);
    if (wrote <= 0) throw new Error('the file system accepted no bytes');
    done += wrote;
  }
}

/** Errors of the file system, typed: the cause's message says what failed, never what the file holds. */
async function unavailableOnFailure<T>(runId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (RulvarError.is(error)) throw error;
    throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} is unavailable: ${describeCause(error)}`, { cause: error });
  }
}

const ignore = (): void => undefined;
