/**
 * The short holdings of a run's lock (file-journal.ts): a load, or an append by a writer that
 * does not hold the run's lease, each under the lock for the few milliseconds it takes. Each
 * journal remembers, per run, the end it last saw under the lock and the file's identity, so
 * finding the end reads only what was appended since (bytes before a whole-line end never
 * change); a different file or a shorter one is read whole.
 */
import { RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { appendAt, type Naming } from './journal-append.js';
import { encodeAppend, type EncodedAppend } from './journal-encode.js';
import { codeOf, type JournalFile, type JournalFs } from './journal-fs.js';
import type { Answer } from './journal-errors.js';
import { START_OF_FILE, scanLines, type LinePosition } from './journal-lines.js';
import { LOCK_WAIT_MS, acquire, isHeld, type HeldLock } from './journal-lock.js';
import { landed } from './journal-shape.js';

/** Runs whose last-seen end is remembered; past it, the least recently used is forgotten (and read whole next time). */
const REMEMBERED_RUNS = 1_024;

export class ShortHoldings {
  private readonly seen = new Map<string, { identity: string; end: LinePosition }>();

  constructor(
    private readonly fs: JournalFs,
    private readonly naming: Naming,
    private readonly runPath: (runId: string) => string,
  ) {}

  /** Every entry of the run: under the lock, or without it while a live lease holds it (up to the last whole line). */
  async load(runId: string, lockPath: string, stayedLocked: (runId: string) => Error): Promise<JournalEntry[]> {
    const file = await this.openIfAny(runId);
    if (file === undefined) return [];
    try {
      const got = await acquire(this.fs, lockPath, LOCK_WAIT_MS);
      if (!isHeld(got) && !got.lease) throw stayedLocked(runId);
      try {
        const { size, identity } = await file.stat();
        const { entries, end } = await scanLines(file, START_OF_FILE, size, runId);
        if (isHeld(got)) this.remember(runId, identity, end);
        return entries;
      } finally {
        if (isHeld(got)) await got.release();
      }
    } finally {
      await file.close();
    }
  }

  /** Appends under `lock` unless the run holds other than `expectedLength` entries (then the count it holds). */
  async appendLocked(runId: string, lock: HeldLock, encoded: EncodedAppend | undefined, count: number, expectedLength: number): Promise<Answer> {
    // A refused or empty append to a run never written leaves no file behind.
    let file: JournalFile;
    try {
      ({ file } = await this.fs.openOrCreate(this.runPath(runId), expectedLength === 0 && encoded !== undefined));
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      return expectedLength === 0 ? 'ok' : { conflict: 0 };
    }
    try {
      const { size, identity } = await file.stat();
      const end = await this.wholeEnd(runId, file, size, identity);
      if (end.entries !== expectedLength) return { conflict: end.entries };
      if (encoded === undefined) return 'ok';
      if (!(await lock.isOurs())) {
        throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} lost its lock to another process while appending (held past its bound); nothing was written`);
      }
      try {
        this.remember(runId, identity, await appendAt(file, size, end, encoded, count, this.naming));
      } catch (error) {
        // Forget the end, so a cut that failed too is found by the next read rather than trusted.
        this.seen.delete(runId);
        throw error;
      }
      return 'ok';
    } finally {
      await file.close();
    }
  }

  /** An inbox request served under a short holding; `recovered` when its dead server may have appended it already. */
  async appendOrAnswer(runId: string, lock: HeldLock, entries: JournalEntry[], expectedLength: number, recovered: boolean): Promise<Answer> {
    if (recovered && landed(await this.readAll(runId), entries, expectedLength)) return 'ok';
    return this.appendLocked(runId, lock, encodeAppend(runId, entries), entries.length, expectedLength);
  }

  /** An empty append to a run a lease holds: only the count to check, read without the lock. */
  async lengthUnlocked(runId: string, expectedLength: number): Promise<Answer> {
    const length = (await this.readAll(runId)).length;
    return length === expectedLength ? 'ok' : { conflict: length };
  }

  private async readAll(runId: string): Promise<JournalEntry[]> {
    const file = await this.openIfAny(runId);
    if (file === undefined) return [];
    try {
      return (await scanLines(file, START_OF_FILE, (await file.stat()).size, runId)).entries;
    } finally {
      await file.close();
    }
  }

  /** The run's file, or undefined when it has none (a run never written holds no entries). */
  private async openIfAny(runId: string): Promise<JournalFile | undefined> {
    try {
      return await this.fs.openExisting(this.runPath(runId));
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The end of the file's last whole line, reading only what follows the remembered one. */
  private async wholeEnd(runId: string, file: JournalFile, size: number, identity: string): Promise<LinePosition> {
    const known = this.seen.get(runId);
    const from = known !== undefined && known.identity === identity && known.end.offset <= size ? known.end : START_OF_FILE;
    return from.offset === size ? from : (await scanLines(file, from, size, runId)).end;
  }

  private remember(runId: string, identity: string, end: LinePosition): void {
    this.seen.delete(runId);
    this.seen.set(runId, { identity, end });
    if (this.seen.size > REMEMBERED_RUNS) this.seen.delete(this.seen.keys().next().value as string);
  }
}
