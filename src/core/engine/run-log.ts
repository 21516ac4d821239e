/**
 * One run's journal as an engine sees it: the entries loaded so far, indexes for replay, and
 * the one path every write takes. Writes are queued so that an engine never races itself;
 * another engine appending to the same run makes the next write fail `journal.conflict`.
 */
import { RulvarError } from '../errors.js';
import { JOURNAL_FORMAT, type JournalEntry, type JournalStore } from './journal.js';

type Of<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

export class RunLog {
  readonly steps = new Map<string, Of<'step'>>();
  readonly spawns = new Map<string, Of<'spawn'>>();
  readonly turns = new Map<string, Of<'turn'>>();
  readonly tools = new Map<string, Of<'tool'>>();
  readonly approvals = new Map<string, Of<'approval'>>();
  readonly resolutions = new Map<string, Of<'resolution'>>();
  readonly agentEnds = new Map<string, Of<'agent:end'>>();
  start: Of<'run:start'> | undefined;
  end: Of<'run:end'> | undefined;
  private length = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: JournalStore,
    readonly runId: string,
  ) {}

  static async load(store: JournalStore, runId: string): Promise<RunLog> {
    const log = new RunLog(store, runId);
    const entries = await store.load(runId);
    if (!Array.isArray(entries)) throw new RulvarError('journal.corrupt', `the journal store did not return a list for run ${JSON.stringify(runId)}`);
    entries.forEach((entry, i) => log.index(entry, i));
    log.length = entries.length;
    return log;
  }

  get size(): number {
    return this.length;
  }

  /** Appends after every write queued before it; rejects (and indexes nothing) on failure. */
  write(...entries: JournalEntry[]): Promise<void> {
    return this.exclusive(() => this.writeHeld(...entries));
  }

  /**
   * Runs `decide` with the queue held, so a check and the write it leads to are one step for
   * this engine (first-closing-wins between resolutions made through the same log).
   */
  exclusive<T>(decide: () => Promise<T>): Promise<T> {
    const next = this.queue.then(decide);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Set by a live run. Another engine may journal a resolution of this run while it executes
   * (an operator answering through a second process); that is not a conflict worth failing the
   * run for, so such entries are taken in, handed to this callback, and the write retried.
   */
  onForeignResolution: ((entry: Of<'resolution'>) => void) | undefined;

  /** A write made from inside `exclusive` (the queue is already held). */
  async writeHeld(...entries: JournalEntry[]): Promise<void> {
    await this.writeUnless(entries, () => false);
  }

  /**
   * Appends `entries`, unless, after taking in another engine's resolutions on a conflict,
   * `superseded()` says they no longer apply (a resolution of the same key came first).
   * Returns whether it wrote.
   */
  async writeUnless(entries: JournalEntry[], superseded: () => boolean): Promise<boolean> {
    for (;;) {
      try {
        await this.store.append(this.runId, entries, this.length);
        break;
      } catch (error) {
        if (!(RulvarError.is(error) && error.code === 'journal.conflict') || !(await this.absorbResolutions())) throw error;
        if (superseded()) return false;
      }
    }
    entries.forEach((entry, i) => this.index(entry, this.length + i));
    this.length += entries.length;
    return true;
  }

  /** True when everything appended since our last write is another engine's resolutions, now indexed. */
  private async absorbResolutions(): Promise<boolean> {
    const absorb = this.onForeignResolution;
    if (absorb === undefined) return false;
    const extra = (await this.store.load(this.runId)).slice(this.length);
    if (extra.length === 0 || extra.some((e) => e?.type !== 'resolution')) return false;
    extra.forEach((e, i) => this.index(e, this.length + i));
    this.length += extra.length;
    for (const e of extra) if (e.type === 'resolution' && this.resolutions.get(e.key) === e) absorb(e);
    return true;
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
        this.turns.set(`${entry.agent}/${entry.turn}`, entry);
        break;
      case 'tool':
        this.tools.set(`${entry.agent}/${entry.turn}/${entry.index}`, entry);
        break;
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
      default:
        throw new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: entry ${position} has an unknown type`);
    }
  }
}

type Unversioned<E> = E extends JournalEntry ? Omit<E, 'v'> : never;

/** Entries are written with the format version; a helper keeps call sites short. */
export function entry<F extends Unversioned<JournalEntry>>(fields: F): F & { readonly v: typeof JOURNAL_FORMAT } {
  return { v: JOURNAL_FORMAT, ...fields };
}
