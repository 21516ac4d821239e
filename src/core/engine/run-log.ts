/**
 * One run's journal as an engine sees it: the entries loaded so far, indexes for replay, and
 * the one path every write takes. Writes are queued so that an engine never races itself;
 * another engine appending to the same run makes the next write fail `journal.conflict`.
 * A run this engine works is read and written through its lease (fenced); the offline paths
 * (a resolution, `pending`) through the store itself.
 */
import { RulvarError } from '../errors.js';
import { JOURNAL_FORMAT, type JournalEntry } from '../journal/entries.js';
import { sealEntry } from '../journal/json-safe.js';
import { APPEND_NOW, appendsNow, type JournalLease, type JournalStore } from '../journal/store.js';

/** Where a RunLog reads and writes: a store for one run, or a lease on it. */
interface Sink {
  load(): Promise<JournalEntry[]>;
  append(entries: JournalEntry[], expectedLength: number): Promise<void>;
  /** `append`, done when it returns (the memory store and its leases); throws what `append` rejects with. */
  readonly now: ((entries: readonly JournalEntry[], expectedLength: number) => void) | undefined;
}

function storeSink(store: JournalStore, runId: string): Sink {
  return {
    load: () => store.load(runId),
    append: (entries, expectedLength) => store.append(runId, entries, expectedLength),
    now: appendsNow(store) ? (entries, expectedLength) => store[APPEND_NOW](runId, entries, expectedLength) : undefined,
  };
}

function leaseSink(lease: JournalLease): Sink {
  return {
    load: () => lease.load(),
    append: (entries, expectedLength) => lease.append(entries, expectedLength),
    now: appendsNow(lease) ? (entries, expectedLength) => lease[APPEND_NOW](lease.runId, entries, expectedLength) : undefined,
  };
}

type Of<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

/** One agent's model turns and tool results, by turn number (and call index): replay reads them per call. */
export interface AgentEntries {
  readonly turns: (Of<'turn'> | undefined)[];
  readonly tools: (Of<'tool'>[] | undefined)[];
}

export class RunLog {
  readonly steps = new Map<string, Of<'step'>>();
  readonly spawns = new Map<string, Of<'spawn'>>();
  private readonly agents = new Map<string, AgentEntries>();
  readonly approvals = new Map<string, Of<'approval'>>();
  readonly resolutions = new Map<string, Of<'resolution'>>();
  readonly agentEnds = new Map<string, Of<'agent:end'>>();
  start: Of<'run:start'> | undefined;
  end: Of<'run:end'> | undefined;
  private length = 0;
  /** Entries of the entry lease among them: no part of the run's own record. */
  private leaseEntries = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Operations in `exclusive`, queued or running. */
  private held = 0;

  private constructor(
    private readonly sink: Sink,
    readonly runId: string,
  ) {}

  /** The run as the store holds it, written without a lease (resolutions, `pending`). */
  static load(store: JournalStore, runId: string): Promise<RunLog> {
    return RunLog.from(storeSink(store, runId), runId);
  }

  /** The run read and written through this engine's lease on it. */
  static loadLeased(lease: JournalLease): Promise<RunLog> {
    return RunLog.from(leaseSink(lease), lease.runId);
  }

  private static async from(sink: Sink, runId: string): Promise<RunLog> {
    const log = new RunLog(sink, runId);
    const loaded = await sink.load();
    if (!Array.isArray(loaded)) throw new RulvarError('journal.corrupt', `the journal store did not return a list for run ${JSON.stringify(runId)}`);
    // The engine only ever holds frozen journal values, whichever store they came from.
    for (let i = 0; i < loaded.length; i += 1) log.index(log.frozen(loaded[i] as JournalEntry, i), i);
    log.length = loaded.length;
    return log;
  }

  /** The entries of agent `key` (empty lists for an agent not journaled yet). */
  agent(key: string): AgentEntries {
    let entries = this.agents.get(key);
    if (entries === undefined) {
      entries = { turns: [], tools: [] };
      this.agents.set(key, entries);
    }
    return entries;
  }

  /**
   * An approval is open until a resolution closes it or the run ends: an ended run applies no
   * resolution, so an approval its agent left behind (re-keyed on resume, or never awaited)
   * is closed with it rather than listed forever.
   */
  isOpen(key: string): boolean {
    return this.end === undefined && this.approvals.has(key) && !this.resolutions.has(key);
  }

  get size(): number {
    return this.length;
  }

  /** Whether the run has any entry of its own (lease entries are the store's bookkeeping). */
  get isEmpty(): boolean {
    return this.length === this.leaseEntries;
  }

  /**
   * Appends after every write queued before it; rejects (and indexes nothing) on failure.
   * Undefined when the entries were appended in place (see below): nothing to wait for, and
   * the two writes of every model turn then skip an `await`, which on a fast adapter and a
   * fast tool cost a fifth of the turn.
   */
  write(...entries: JournalEntry[]): Promise<unknown> | undefined {
    const now = this.sink.now;
    if (this.held === 0 && now !== undefined) {
      // Nothing queued and a store that is done when it returns: no queue, no promise per step.
      const sealed = entries.map(sealEntry);
      try {
        now(sealed, this.length);
      } catch (error) {
        // A conflict may be another engine's resolutions, which the queued path absorbs.
        if (RulvarError.is(error) && error.code === 'journal.conflict') return this.exclusive(() => this.writeUnless(entries, never));
        return Promise.reject(error);
      }
      this.indexAll(sealed);
      return undefined;
    }
    return this.exclusive(() => this.writeUnless(entries, never));
  }

  /**
   * Runs `decide` with the queue held, so a check and the write it leads to are one step for
   * this engine (first-closing-wins between resolutions made through the same log).
   */
  exclusive<T>(decide: () => Promise<T>): Promise<T> {
    this.held += 1;
    // Nothing queued or running: start now rather than a microtask later (most writes).
    const next = this.held === 1 ? decide() : this.queue.then(decide);
    this.queue = next.then(this.release, this.release);
    return next;
  }

  private readonly release = (): void => {
    this.held -= 1;
  };

  /**
   * Set by a live run. Another engine may journal a resolution of this run while it executes
   * (an operator answering through a second process); that is not a conflict worth failing the
   * run for, so such entries are taken in, handed to this callback, and the write retried.
   */
  onForeignResolution: ((entry: Of<'resolution'>) => void) | undefined;

  /**
   * Appends `entries`, unless, after taking in another engine's resolutions on a conflict,
   * `superseded()` says they no longer apply (a resolution of the same key came first).
   * Returns whether it wrote.
   */
  writeUnless(written: JournalEntry[], superseded: () => boolean): Promise<boolean> {
    // Frozen before the store sees them: the store may keep them by reference.
    return this.appendOnce(written.map(sealEntry), superseded);
  }

  /** One attempt, and another after a conflict that only other engines' resolutions caused. */
  private appendOnce(entries: JournalEntry[], superseded: () => boolean): Promise<boolean> {
    let appended: Promise<void>;
    try {
      appended = Promise.resolve(this.sink.append(entries, this.length));
    } catch (error) {
      // A store that throws instead of rejecting must not leave the queue held.
      appended = Promise.reject(error);
    }
    return appended.then(
      () => {
        this.indexAll(entries);
        return true;
      },
      async (error: unknown) => {
        if (!(RulvarError.is(error) && error.code === 'journal.conflict') || !(await this.absorbResolutions())) throw error;
        return superseded() ? false : this.appendOnce(entries, superseded);
      },
    );
  }

  private indexAll(entries: readonly JournalEntry[]): void {
    for (let i = 0; i < entries.length; i += 1) this.index(entries[i] as JournalEntry, this.length + i);
    this.length += entries.length;
  }

  /**
   * True when everything appended since our last write is another engine's resolutions or
   * lease entries (this engine's renewals; a lease that saw another holder's failed already),
   * now indexed.
   */
  private async absorbResolutions(): Promise<boolean> {
    const absorb = this.onForeignResolution;
    if (absorb === undefined) return false;
    const loaded = (await this.sink.load()).slice(this.length);
    if (loaded.length === 0 || loaded.some((e) => e?.type !== 'resolution' && e?.type !== 'lease')) return false;
    const extra = loaded.map((e, i) => this.frozen(e, this.length + i));
    extra.forEach((e, i) => this.index(e, this.length + i));
    this.length += extra.length;
    for (const e of extra) if (e.type === 'resolution' && this.resolutions.get(e.key) === e) absorb(e);
    return true;
  }

  /** A loaded entry as the engine holds it; what JSON cannot hold is a corrupt journal. */
  private frozen(entry: JournalEntry, position: number): JournalEntry {
    try {
      return sealEntry(entry);
    } catch {
      throw new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: entry ${position} is not JSON`);
    }
  }

  private position(value: unknown, entryAt: number): number {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < MAX_POSITION) return value;
    throw new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: entry ${entryAt} has a turn or index that is not a small non-negative integer`);
  }

  private index(entry: JournalEntry, position: number): void {
    if (typeof entry !== 'object' || entry === null || entry.v !== JOURNAL_FORMAT) {
      throw new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: entry ${position} is not a format ${JOURNAL_FORMAT} journal entry`);
    }
    switch (entry.type) {
      case 'run:start':
        this.start = entry;
        break;
      case 'step':
        this.steps.set(entry.name, entry);
        break;
      case 'spawn':
        this.spawns.set(entry.agent, entry);
        break;
      case 'turn':
        this.agent(entry.agent).turns[this.position(entry.turn, position)] = entry;
        break;
      case 'tool': {
        const byTurn = this.agent(entry.agent).tools;
        const turn = this.position(entry.turn, position);
        const index = this.position(entry.index, position);
        const results = byTurn[turn];
        if (results !== undefined) results[index] = entry;
        else {
          // Sized for its first entry, which is almost always the turn's only one: a resume
          // indexes one of these per turn, and `[]` grown by one grows to 17 slots.
          const fresh = new Array<Of<'tool'>>(index + 1);
          fresh[index] = entry;
          byTurn[turn] = fresh;
        }
        break;
      }
      case 'approval':
        this.approvals.set(entry.key, entry);
        break;
      case 'resolution':
        // First journaled wins: a later entry for the same key (another engine's, racing) is ignored.
        if (!this.resolutions.has(entry.key)) this.resolutions.set(entry.key, entry);
        break;
      case 'agent:end':
        this.agentEnds.set(entry.agent, entry);
        break;
      case 'run:end':
        this.end = entry;
        break;
      case 'lease':
        this.leaseEntries += 1;
        break;
      default:
        throw new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: entry ${position} has an unknown type`);
    }
  }
}

/** Entries are stored by turn and index in arrays, so those must be small non-negative integers. */
const MAX_POSITION = 1_000_000;

const never = (): boolean => false;
