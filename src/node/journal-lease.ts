/**
 * fileJournal's lease (LEASES.md): the run's lock, held for as long as an engine works the run,
 * with the run file kept open and its entries known. An append under it is one positional
 * write and one fdatasync, with no lock file made or removed (the directory is synced only
 * when the run file's name is new); a load reads only what the lease does not hold yet.
 *
 * Fencing: the lock is renewed by setting its mtime (others judge a lease stale once it was
 * not renewed for `ms`, or its pid is gone). A renewal touches the lock, then checks its name
 * still points at this holding; once it does not, or once `ms` has passed since the last
 * renewal began (another process may judge it stale from then on, as the memory and Durable
 * Object leases expire), the lease is lost for good and every append and renewal is
 * `run.lease_lost`, writing nothing. Nobody can judge the lease stale before that, so an
 * append within `ms / 3` of a renewal writes without asking; later, it renews first. What is
 * left is a stall of more than `2 × ms / 3` between that check and the write itself (a
 * process stopped in those microseconds).
 */
import { RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { sealCopy } from '../core/journal/json-safe.js';
import type { JournalLease } from '../core/journal/store.js';
import { appendAt, type Naming } from './journal-append.js';
import { encodeAppend } from './journal-encode.js';
import { codeOf, type JournalFile, type JournalFs } from './journal-fs.js';
import { settle, unavailableOnFailure, type Answer } from './journal-errors.js';
import { START_OF_FILE, scanLines, type LinePosition } from './journal-lines.js';
import type { HeldLock } from './journal-lock.js';
import { deepFreeze, landed } from './journal-shape.js';

/** What a lease needs of its journal. */
export interface LeaseContext {
  readonly fs: JournalFs;
  readonly runId: string;
  readonly runPath: string;
  /** Makes names in the directory durable before a run file's first bytes. */
  readonly naming: Naming;
  /** Serves the inbox through the lease one last time before it is released (requests that came late). */
  drain(lease: FileLease): Promise<void>;
  /** The lease ended (released, or found lost): the journal forgets it. */
  ended(lease: FileLease): void;
}

export class FileLease implements JournalLease {
  private run: { readonly file: JournalFile } | undefined;
  private end: LinePosition = START_OF_FILE;
  /** The file's size as last seen: past `end` lies a torn tail to cut. */
  private size = 0;
  private entries: JournalEntry[] = [];
  /** Another holding took the lock: it is not ours to release. */
  private lost = false;
  private released = false;
  private queue: Promise<unknown> = Promise.resolve();
  private releasing: Promise<void> | undefined;

  private constructor(
    private readonly ctx: LeaseContext,
    private readonly lock: HeldLock,
    readonly holder: string,
    private readonly ms: number,
    /** When the last renewal (or the claim) began, on this process's clock. */
    private renewedAt: number,
  ) {}

  get runId(): string {
    return this.ctx.runId;
  }

  /** The lease on a lock just taken (at `takenAt`): opens and reads the run file, if there is one. */
  static async open(ctx: LeaseContext, lock: HeldLock, holder: string, ms: number, takenAt: number): Promise<FileLease> {
    const lease = new FileLease(ctx, lock, holder, ms, takenAt);
    try {
      await lease.catchUp();
      return lease;
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  load(): Promise<JournalEntry[]> {
    return this.inTurn(async () => {
      await this.fence();
      await this.catchUp();
      return this.entries.slice();
    });
  }

  async append(entries: JournalEntry[], expectedLength: number): Promise<void> {
    settle(this.runId, await this.appendOrAnswer(entries, expectedLength, false), expectedLength);
  }

  /**
   * The append, or the count of entries the run holds when that is not `expectedLength` (the
   * inbox answers with it). `recovered`: a request whose server died may have appended it already.
   */
  appendOrAnswer(entries: JournalEntry[], expectedLength: number, recovered: boolean): Promise<Answer> {
    // Refused before it queues: what the journal could not read back is never written.
    const encoded = encodeAppend(this.runId, entries);
    return this.inTurn(async (): Promise<Answer> => {
      await this.fence();
      if (recovered && landed(this.entries, entries, expectedLength)) return 'ok';
      if (this.entries.length !== expectedLength) return { conflict: this.entries.length };
      if (encoded === undefined) return 'ok';
      const copies = entries.map(sealCopy);
      const file = await this.openForWrite();
      try {
        this.end = await appendAt(file, this.size, this.end, encoded, entries.length, this.ctx.naming);
        this.size = this.end.offset;
      } catch (error) {
        // Read again before the next append rather than trust an end a failed cut may have left.
        this.end = START_OF_FILE;
        this.size = 0;
        this.entries = [];
        await this.catchUp().catch(() => undefined);
        throw error;
      }
      for (const copy of copies) this.entries.push(copy);
      return 'ok';
    });
  }

  renew(): Promise<void> {
    return unavailableOnFailure(this.runId, async () => {
      if (this.ended) throw this.lostError();
      const started = Date.now();
      await this.lock.touch(started);
      if (!(await this.lock.isOurs())) {
        this.lost = true;
        throw this.lostError();
      }
      this.renewedAt = Math.max(this.renewedAt, started);
    });
  }

  release(): Promise<void> {
    this.releasing ??= this.finish();
    return this.releasing;
  }

  private async finish(): Promise<void> {
    if (!this.ended) await this.ctx.drain(this).catch(() => undefined);
    this.released = true;
    await this.queue;
    // A lost lock is another holder's now; one not renewed lately may be, so it is moved aside first.
    if (!this.lost) await this.lock.release(Date.now() - this.renewedAt > this.ms / 2);
    await this.run?.file.close().catch(() => undefined);
    this.run = undefined;
    this.ctx.ended(this);
  }

  /** Whether the lease is still to be used (a journal routes its own appends to the run through it). */
  get live(): boolean {
    return !this.ended;
  }

  /** Runs `work` after everything queued before it, so appends land in the order they were made. */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(() => unavailableOnFailure(this.runId, work));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Rejects `run.lease_lost` once another holder may have the run; renews first when the last renewal is a third of `ms` old. */
  private async fence(): Promise<void> {
    if (this.ended) throw this.lostError();
    if (Date.now() - this.renewedAt > this.ms / 3) await this.renew();
  }

  /** Released, taken over, or not renewed within `ms`. */
  private get ended(): boolean {
    return this.released || this.lost || Date.now() - this.renewedAt > this.ms;
  }

  /** Reads what the file holds past the known end (everything, when the file is new to this lease or was cut). */
  private async catchUp(): Promise<void> {
    if (this.run === undefined) {
      try {
        this.run = await this.ctx.fs.openOrCreate(this.ctx.runPath, false);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return;
        throw error;
      }
    }
    const { size } = await this.run.file.stat();
    if (size === this.size) return;
    if (size < this.end.offset) {
      this.end = START_OF_FILE;
      this.entries = [];
    }
    const { entries, end } = await scanLines(this.run.file, this.end, size, this.runId);
    for (const entry of entries) this.entries.push(deepFreeze(entry));
    this.end = end;
    this.size = size;
  }

  private async openForWrite(): Promise<JournalFile> {
    if (this.run !== undefined) return this.run.file;
    const { file } = await this.ctx.fs.openOrCreate(this.ctx.runPath);
    const { size } = await file.stat();
    this.run = { file };
    // Made between the claim and now by someone who should not have: read it, conflict next time.
    if (size > 0) {
      await this.catchUp();
      throw new RulvarError('journal.conflict', `run ${JSON.stringify(this.runId)} was written outside its lease`);
    }
    return file;
  }

  private lostError(): RulvarError {
    const why = this.released ? 'was released' : this.lost ? 'passed to another holder' : `ran out (not renewed within ${this.ms} ms)`;
    return new RulvarError('run.lease_lost', `the lease of ${this.holder} on run ${JSON.stringify(this.runId)} ${why}; nothing was written`);
  }
}
