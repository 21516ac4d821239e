/**
 * `durableObjectJournal(storage)`: the JournalStore of a Cloudflare Durable Object, over the
 * key-value API that both storage backends (SQLite and the legacy KV one) offer. The store is
 * handed the storage rather than importing anything of Workers, so the core stays Web-only.
 *
 * Layout, per run (`<run>` is the id behind its length, `5:order`: no id's keys can start
 * with another id's prefix, whatever characters the ids hold):
 *   rulvar/journal/<run>/length                        entries committed: the commit marker
 *   rulvar/journal/<run>/e/<index>/<part>/<parts>      part <part> of <parts> of an entry's JSON
 *   rulvar/journal/<run>/lease                         the run's lease: holder, until, token
 * An append writes its own entries' keys and the length, never what is already there, so a
 * long run costs the same per append as a short one. A load lists the parts of the indexes
 * below the length, page by page, and joins them.
 */
import { ConfigError, RulvarError } from '../errors.js';
import type { JournalEntry } from './entries.js';
import { entryText } from './entry-text.js';
import { claimDurableLease, type Fence } from './durable-object-lease.js';
import type { JournalStore } from './store.js';

/** The storage methods this store uses; `ctx.storage` of a Durable Object has them. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  list(options: DurableObjectListOptionsLike): Promise<Map<string, unknown>>;
  transaction<T>(closure: (txn: DurableObjectTransactionLike) => Promise<T>): Promise<T>;
}

/** What a transaction closure is given (the `txn` of `storage.transaction`). */
export interface DurableObjectTransactionLike {
  get(key: string): Promise<unknown>;
  /** Up to MAX_KEYS_PER_CALL keys per call, as the platform allows. */
  put(entries: Record<string, unknown>): Promise<void>;
}

/** The `list` options this store passes; keys come back in UTF-8 order. */
export interface DurableObjectListOptionsLike {
  readonly prefix: string;
  readonly startAfter?: string;
  /** Exclusive. */
  readonly end: string;
  readonly limit: number;
}

/**
 * The legacy KV backend refuses values over 128 KiB of V8 serialization, where a string costs
 * one byte per UTF-16 unit, or two when any unit is above U+00FF. 32 Ki units is at most 64 KiB:
 * half the limit, leaving room for the serializer's framing (the SQLite backend allows 2 MB).
 */
const MAX_PART_UNITS = 32 * 1024;
/** Keys one put may carry: the platform's limit. */
const MAX_KEYS_PER_CALL = 128;
/** Keys one list call returns: a page of whole parts, at most 8 MiB of text. */
const LIST_PAGE = 128;
const INDEX_DIGITS = 10;
const PART_DIGITS = 5;
const MAX_RUN_ID_UNITS = 128;

export function durableObjectJournal(storage: DurableObjectStorageLike): JournalStore {
  if (typeof storage?.get !== 'function' || typeof storage.list !== 'function' || typeof storage.transaction !== 'function') {
    throw new ConfigError('config.invalid_value', 'durableObjectJournal needs Durable Object storage (ctx.storage): an object with get, list and transaction');
  }
  const store: JournalStore = {
    async load(runId) {
      const keys = runKeys(runId);
      // No transaction needed: parts below the stored length never change once committed (an
      // append writes at and past it), and the listing stops at the length read here.
      const length = committedLength(await storage.get(keys.length), runId);
      const reader = new EntryReader(runId);
      for (let after: string | undefined; reader.size < length; ) {
        const page = await storage.list({ prefix: keys.entries, end: keys.entry(length), limit: LIST_PAGE, ...(after === undefined ? {} : { startAfter: after }) });
        for (const [key, value] of page) reader.take(key.slice(keys.entries.length), value);
        if (page.size < LIST_PAGE) break;
        after = [...page.keys()].at(-1);
      }
      return reader.finish(length);
    },
    append: (runId, entries, expectedLength) => appendEntries(storage, runId, entries, expectedLength, undefined),
    claim: (runId, request) =>
      claimDurableLease(storage, runId, runKeys(runId).lease, request, (entries, expectedLength, fence) => appendEntries(storage, runId, entries, expectedLength, fence), store),
  };
  return store;
}

async function appendEntries(storage: DurableObjectStorageLike, runId: string, entries: JournalEntry[], expectedLength: number, fence: Fence | undefined): Promise<void> {
  const keys = runKeys(runId);
  // Serialized before the transaction opens: an entry JSON cannot hold refuses the append
  // with nothing written, and the transaction holds no CPU-bound work. The new length goes
  // last; it only lands if the length read inside is `expectedLength`.
  const writes: [string, unknown][] = entries.flatMap((entry, i) => Object.entries(partsOf(entry, keys, expectedLength + i, runId)));
  writes.push([keys.length, expectedLength + entries.length]);
  // An explicit transaction, not the implicit atomicity of writes made without an await in
  // between: a put that throws halfway (a value over the limit, a storage fault) rolls back
  // the parts already put, and the read-compare-write stays isolated even for a caller that
  // opts out of input gates (`allowConcurrency`) or awaits elsewhere meanwhile.
  await storage.transaction(async (txn) => {
    if (fence !== undefined) await fence(txn);
    const length = committedLength(await txn.get(keys.length), runId);
    if (length !== expectedLength) {
      throw new RulvarError('journal.conflict', `run ${JSON.stringify(runId)} has ${length} journal entries, not the ${expectedLength} this append expected`);
    }
    if (entries.length === 0) return;
    for (let i = 0; i < writes.length; i += MAX_KEYS_PER_CALL) await txn.put(Object.fromEntries(writes.slice(i, i + MAX_KEYS_PER_CALL)));
  });
}

interface RunKeys {
  readonly length: string;
  /** The run's lease record (durable-object-lease.ts). */
  readonly lease: string;
  /** The prefix of every entry part of the run. */
  readonly entries: string;
  /** The prefix of entry `index`'s parts (also the exclusive end of the indexes below it). */
  entry(index: number): string;
}

function runKeys(runId: string): RunKeys {
  if (typeof runId !== 'string' || runId.length === 0 || runId.length > MAX_RUN_ID_UNITS || UNFIT_IN_KEY.test(runId)) {
    throw new ConfigError(
      'config.invalid_value',
      `a Durable Object journal needs a run id of 1 to ${MAX_RUN_ID_UNITS} characters without control characters or unpaired surrogates, not ${describeRunId(runId)}`,
    );
  }
  const run = `rulvar/journal/${runId.length}:${runId}/`;
  const entries = `${run}e/`;
  return { length: `${run}length`, lease: `${run}lease`, entries, entry: (index) => `${entries}${pad(index, INDEX_DIGITS)}/` };
}

/**
 * Control characters make keys unreadable in any tool that shows them; an unpaired surrogate
 * becomes U+FFFD in storage (keys are UTF-8), so two such ids would share keys.
 */
const UNFIT_IN_KEY = /[\p{Cc}\p{Cs}]/u;

function describeRunId(runId: unknown): string {
  return typeof runId === 'string' ? `one of ${runId.length} characters ${JSON.stringify(runId.slice(0, 40))}` : `a ${typeof runId}`;
}

/** Entry `index`'s keys and JSON parts, each small enough for any backend. */
function partsOf(entry: JournalEntry, keys: RunKeys, index: number, runId: string): Record<string, string> {
  const text = entryText(entry, index, runId);
  const slices: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + MAX_PART_UNITS, text.length);
    // A surrogate pair stays in one part: a lone half would not survive storage as text.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    slices.push(text.slice(start, end));
    start = end;
  }
  const parts = pad(slices.length, PART_DIGITS);
  return Object.fromEntries(slices.map((slice, part) => [`${keys.entry(index)}${pad(part, PART_DIGITS)}/${parts}`, slice]));
}

/** Turns listed parts, in key order, back into entries; anything out of place is corrupt. */
class EntryReader {
  private readonly entries: JournalEntry[] = [];
  private pieces: string[] = [];
  /** How many parts the entry being read has, as its first part's key says. */
  private parts = 0;

  constructor(private readonly runId: string) {}

  get size(): number {
    return this.entries.length;
  }

  /** `key` is relative to the run's entry prefix: `<index>/<part>/<parts>`. */
  take(key: string, value: unknown): void {
    const index = this.entries.length;
    const [, at, part, parts] = (PART_KEY.exec(key) ?? []).map(Number);
    if (part === 0 && parts !== undefined) this.parts = parts;
    if (at !== index || part !== this.pieces.length || parts !== this.parts || parts <= part) throw this.corrupt(index, `has a missing or misplaced part (key ${JSON.stringify(key)})`);
    if (typeof value !== 'string') throw this.corrupt(index, 'holds a value that is not text');
    this.pieces.push(value);
    if (this.pieces.length < parts) return;
    const text = this.pieces.join('');
    this.pieces = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.corrupt(index, 'is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw this.corrupt(index, 'is not a JSON object');
    this.entries.push(parsed as JournalEntry);
  }

  finish(length: number): JournalEntry[] {
    if (this.entries.length < length) throw this.corrupt(this.entries.length, 'is missing or incomplete');
    return this.entries;
  }

  private corrupt(index: number, what: string): RulvarError {
    return new RulvarError('journal.corrupt', `run ${JSON.stringify(this.runId)}: journal entry ${index} ${what}`);
  }
}

const PART_KEY = new RegExp(`^(\\d{${INDEX_DIGITS}})/(\\d{${PART_DIGITS}})/(\\d{${PART_DIGITS}})$`);

/** The stored length: absent is an empty run; anything but a count the keys can order is corrupt. */
function committedLength(stored: unknown, runId: string): number {
  if (stored === undefined) return 0;
  if (typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 0 && stored < 10 ** INDEX_DIGITS) return stored;
  throw new RulvarError('journal.corrupt', `run ${JSON.stringify(runId)}: the stored journal length is not a count of entries`);
}

const pad = (n: number, digits: number): string => String(n).padStart(digits, '0');

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
