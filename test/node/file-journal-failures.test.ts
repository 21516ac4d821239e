/**
 * fileJournal when the disk or a lock fails it: a write that runs out of space half way or an
 * fsync that reports EIO is a typed `journal.unavailable` with nothing half applied (the next
 * load returns exactly what was there, the next append lands where the failed one would
 * have), and a lock left by a holder that is gone, or far too old, is broken rather than
 * waited on forever. The file system is swapped through createFileJournal's seam.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { createFileJournal, fileJournal } from '../../src/node/file-journal.js';
import { nodeJournalFs, type JournalFs } from '../../src/node/journal-fs.js';
import { LOCK_WAIT_MS } from '../../src/node/journal-lock.js';

const step = (name: string, value: unknown = name): JournalEntry => ({ v: 1, type: 'step', name, value });
const SECRET = 'sk-live-do-not-print-me';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-journal-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const systemError = (code: string) => Object.assign(new Error(`${code}: simulated, write`), { code });

/** The real file system, except that the first write or fsync of a run file fails as `fail` says. */
function failingOnce(fail: 'half then ENOSPC' | 'ENOSPC' | 'EIO on fsync'): JournalFs {
  let failed = false;
  return {
    ...nodeJournalFs,
    async openOrCreate(target) {
      const opened = await nodeJournalFs.openOrCreate(target);
      const { file } = opened;
      return {
        ...opened,
        file: {
          ...file,
          async write(data, position) {
            if (failed || fail === 'EIO on fsync') return file.write(data, position);
            failed = true;
            // The disk fills up part way through: what fit is in the file when the error comes.
            if (fail === 'half then ENOSPC') await file.write(data.subarray(0, data.byteLength >> 1), position);
            throw systemError('ENOSPC');
          },
          async sync() {
            if (failed || fail !== 'EIO on fsync') return file.sync();
            failed = true;
            throw systemError('EIO');
          },
        },
      };
    },
  };
}

describe('fileJournal: a failed write applies nothing', () => {
  for (const fail of ['half then ENOSPC', 'ENOSPC', 'EIO on fsync'] as const) {
    it(`${fail}: journal.unavailable with the cause, no content; load unchanged; the next append takes its place`, async () => {
      await fileJournal({ dir }).append('r1', [step('a'), step('b')], 0);
      const before = readFileSync(path.join(dir, 'r1.jsonl'));
      const broken = createFileJournal({ dir }, failingOnce(fail));
      const error = await broken.append('r1', [step('c', SECRET), step('d', SECRET)], 2).then(() => undefined, (e: Error) => e);
      expect(error).toMatchObject({ name: 'RulvarError', code: 'journal.unavailable' });
      expect(error?.message).toContain(fail === 'EIO on fsync' ? 'EIO' : 'ENOSPC');
      expect(error?.message).not.toContain(SECRET);
      expect(readFileSync(path.join(dir, 'r1.jsonl'))).toEqual(before);
      expect(await broken.load('r1')).toEqual([step('a'), step('b')]);
      expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
      await broken.append('r1', [step('c')], 2);
      expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b'), step('c')]);
    });
  }

  it('a failed first append leaves an empty run file that loads as [] and can still be started', async () => {
    const broken = createFileJournal({ dir }, failingOnce('half then ENOSPC'));
    expect(await broken.append('r1', [step('a')], 0).catch((e: { code: string }) => e.code)).toBe('journal.unavailable');
    expect(readFileSync(path.join(dir, 'r1.jsonl'), 'utf8')).toBe('');
    expect(await broken.load('r1')).toEqual([]);
    await broken.append('r1', [step('a')], 0);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a')]);
  });

  it('an unwritable directory is journal.unavailable, not a raw fs error', async () => {
    const file = path.join(dir, 'not-a-dir');
    writeFileSync(file, '');
    const error = await fileJournal({ dir: path.join(file, 'journals') }).append('r1', [step('a')], 0).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'RulvarError', code: 'journal.unavailable' });
  });
});

describe('fileJournal: names made durable', () => {
  /** The real file system, recording every directory it fsyncs; while `failing` holds one, its fsync fails with EIO. */
  function recordingSyncs(failing?: string): { fs: JournalFs; synced: string[]; heal(): void } {
    const synced: string[] = [];
    let broken = failing;
    const syncDir = async (target: string) => {
      synced.push(target);
      if (target === broken) throw systemError('EIO');
      await nodeJournalFs.syncDir(target);
    };
    return { synced, fs: { ...nodeJournalFs, syncDir }, heal: () => (broken = undefined) };
  }

  it('fsyncs the parent of every directory it creates, and the run directory before its new file\'s first bytes', async () => {
    const deep = path.join(dir, 'a', 'b', 'journals');
    const { fs, synced } = recordingSyncs();
    const journal = createFileJournal({ dir: deep }, fs);
    await journal.append('r1', [step('a')], 0);
    expect(synced.sort()).toEqual([dir, path.join(dir, 'a'), path.join(dir, 'a', 'b'), deep].sort());
    synced.length = 0;
    await journal.append('r1', [step('b')], 1);
    expect(synced).toEqual([]);
  });

  it('an empty run file (its creator killed before its first write) is synced into its directory before the first bytes go in', async () => {
    // Every writer syncs the directory before writing into an empty run file, so content
    // always means a durable name; an empty file's name may not be, whoever made it.
    writeFileSync(path.join(dir, 'r1.jsonl'), '');
    const { fs, synced } = recordingSyncs();
    const journal = createFileJournal({ dir }, fs);
    await journal.append('r1', [step('a')], 0);
    // The directory's own name first: whoever made it may have died before syncing it.
    expect(synced).toEqual([path.dirname(dir), dir]);
    await journal.append('r1', [step('b')], 1);
    expect(synced).toEqual([path.dirname(dir), dir]);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
  });

  it('a run file with content, in a directory whose name was synced, is appended to without a directory sync (a new process resuming)', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    expect(existsSync(path.join(dir, '.rulvar-dir'))).toBe(true);
    const { fs, synced } = recordingSyncs();
    const journal = createFileJournal({ dir }, fs);
    await journal.append('r1', [step('b')], 1);
    const lease = await journal.claim!('r1', { holder: 'engine', ms: 30_000 });
    await lease.append([step('c')], 2);
    await lease.release();
    expect(synced).toEqual([]);
    // Without the marker, the directory's own name is synced once more (and marked).
    rmSync(path.join(dir, '.rulvar-dir'));
    await createFileJournal({ dir }, fs).append('r1', [step('d')], 3);
    expect(synced).toEqual([path.dirname(dir)]);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b'), step('c'), step('d')]);
  });

  it('a directory fsync that fails is journal.unavailable with nothing written, and the next append syncs again', async () => {
    await fileJournal({ dir }).append('r0', [step('a')], 0);
    const { fs, synced, heal } = recordingSyncs(dir);
    const journal = createFileJournal({ dir }, fs);
    expect(await journal.append('r1', [step('a')], 0).catch((e: { code: string }) => e.code)).toBe('journal.unavailable');
    expect(readFileSync(path.join(dir, 'r1.jsonl'), 'utf8')).toBe('');
    heal();
    await journal.append('r1', [step('a')], 0);
    expect(synced).toEqual([dir, dir]);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a')]);
  });

  it('a parent directory fsync that fails is journal.unavailable before anything is written, and the next append syncs it again', async () => {
    const deep = path.join(dir, 'journals');
    const { fs, synced, heal } = recordingSyncs(dir);
    const journal = createFileJournal({ dir: deep }, fs);
    expect(await journal.append('r1', [step('a')], 0).catch((e: { code: string }) => e.code)).toBe('journal.unavailable');
    expect(existsSync(path.join(deep, 'r1.jsonl'))).toBe(false);
    heal();
    // The directory exists now, so mkdirs creates nothing: the sync must be retried all the same.
    await journal.append('r1', [step('a')], 0);
    expect(synced).toEqual([dir, dir, deep]);
    expect(await fileJournal({ dir: deep }).load('r1')).toEqual([step('a')]);
  });
});

describe('fileJournal: locks nobody will release', () => {
  const lockOf = (runId: string) => path.join(dir, `${runId}.jsonl.lock`);

  it('breaks a lock whose holder is gone (its pid no longer runs)', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(lockOf('r1'), `${gone} ${Date.now()} token-of-a-dead-holder`);
    const started = Date.now();
    await fileJournal({ dir }).append('r1', [step('b')], 1);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(existsSync(lockOf('r1'))).toBe(false);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
  });

  it('breaks a lock far older than any holding, even when its pid runs (a reused pid)', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    writeFileSync(lockOf('r1'), `${process.pid} ${Date.now() - 60_000} token-of-long-ago`);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a')]);
    expect(existsSync(lockOf('r1'))).toBe(false);
  });

  it('a holder whose lock was broken and taken while it stalled writes nothing and leaves the new holder\'s lock', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const before = readFileSync(path.join(dir, 'r1.jsonl'));
    const other = `${process.pid} ${Date.now()} token-of-the-process-that-broke-it`;
    // The stall: while it reads the file under its lock, another process judges the lock
    // stale, breaks it (moves it aside) and takes it (a new lock file in its place).
    const stalling: JournalFs = {
      ...nodeJournalFs,
      async openOrCreate(target) {
        const opened = await nodeJournalFs.openOrCreate(target);
        const stat = opened.file.stat;
        const breakAndTake = () => {
          renameSync(lockOf('r1'), `${lockOf('r1')}.broken`);
          writeFileSync(lockOf('r1'), other);
        };
        return { ...opened, file: { ...opened.file, stat: async () => (breakAndTake(), stat()) } };
      },
    };
    const error = await createFileJournal({ dir }, stalling).append('r1', [step('b', SECRET)], 1).then(() => undefined, (e: Error) => e);
    expect(error).toMatchObject({ name: 'RulvarError', code: 'journal.unavailable' });
    expect(error?.message).toContain('lost its lock');
    expect(error?.message).not.toContain(SECRET);
    expect(readFileSync(path.join(dir, 'r1.jsonl'))).toEqual(before);
    expect(readFileSync(lockOf('r1'), 'utf8')).toBe(other);
  });

  it('gives up on a live, recent holder after 5 s with journal.unavailable: not much earlier, not much later', async () => {
    expect(LOCK_WAIT_MS).toBe(5_000);
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const before = readFileSync(path.join(dir, 'r1.jsonl'));
    writeFileSync(lockOf('r1'), `${process.pid} ${Date.now()} token-of-a-live-holder-that-never-lets-go`);
    const timed = async (work: Promise<unknown>) => {
      const started = performance.now();
      const error = await work.then(() => undefined, (e: Error & { code?: string }) => e);
      return { ms: performance.now() - started, code: error?.code, message: error?.message };
    };
    const [append, load] = await Promise.all([timed(fileJournal({ dir }).append('r1', [step('b')], 1)), timed(fileJournal({ dir }).load('r1'))]);
    for (const waited of [append, load]) {
      expect(waited).toMatchObject({ code: 'journal.unavailable', message: expect.stringContaining('stayed locked by another process for 5000 ms') });
      // The bound itself, give or take a retry's sleep (at most 30 ms) and a loaded machine.
      expect(waited.ms).toBeGreaterThanOrEqual(LOCK_WAIT_MS - 5);
      expect(waited.ms).toBeLessThan(LOCK_WAIT_MS + 1_500);
    }
    expect(readFileSync(path.join(dir, 'r1.jsonl'))).toEqual(before);
  }, 20_000);

  it('waits for a live, recent holder, and takes the lock once it is released', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    writeFileSync(lockOf('r1'), `${process.pid} ${Date.now()} token-of-a-live-holder`);
    let done = false;
    const appended = fileJournal({ dir }).append('r1', [step('b')], 1).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false);
    await rm(lockOf('r1'));
    await appended;
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
  });
});
