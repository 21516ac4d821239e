/**
 * Entries on their way into the entries table and back out. Going in, a batch becomes JSON
 * array texts (the statement splits each with json_array_elements, each element keeping its
 * text): one, or several of at most PART_UNITS when the batch is larger, so that a turn of
 * many large results never needs one string V8 cannot make (about 512 MiB) or one statement
 * past Postgres's 1 GB message; the parts go in one transaction. Coming out, nothing is trusted: anyone with access to the database can write a
 * row, so each must sit at its place in the run, be at most MAX_ENTRY_BYTES (the query sends
 * only the size of a larger one, never its text) and parse to a JSON object, or the load is
 * `journal.corrupt` naming the run and the entry.
 */
import { ConfigError, RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { entryText } from '../core/journal/entry-text.js';

/**
 * Largest entry written or read, as UTF-8. Above anything the engine makes with the default
 * bounds (a tool result is at most 16 MiB as JSON, a provider's answer 32 MiB); a read of a
 * larger row, which only someone writing to the table directly can make, is refused unread.
 */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/** UTF-16 units of one part of a batch (an entry larger than this is a part on its own). */
export const PART_UNITS = 32 * 1024 * 1024;

/** One part of a batch: its entries as one JSON array text, and how many they are. */
export interface BatchPart {
  readonly text: string;
  readonly count: number;
}

const encoder = new TextEncoder();

/** The batch as JSON array texts in order; refuses what JSON cannot hold or what is too large. */
export function batchParts(runId: string, entries: readonly JournalEntry[], expectedLength: number): BatchPart[] {
  if (!Array.isArray(entries)) throw new ConfigError('config.invalid_value', `postgresJournal: the entries appended to run ${JSON.stringify(runId)} are not a list`);
  const parts: BatchPart[] = [];
  let texts: string[] = [];
  let units = 0;
  const close = () => {
    if (texts.length > 0) parts.push({ text: `[${texts.join(',')}]`, count: texts.length });
    texts = [];
    units = 0;
  };
  // By index, not forEach: a hole in the list is an entry that is not an object, refused.
  for (let i = 0; i < entries.length; i += 1) {
    const index = expectedLength + i;
    const text = entryText(entries[i] as JournalEntry, index, runId);
    // Three bytes per UTF-16 unit at most: only a text that could be too large is measured.
    if (text.length * 3 > MAX_ENTRY_BYTES && encoder.encode(text).byteLength > MAX_ENTRY_BYTES) {
      throw new ConfigError('config.invalid_value', `journal entry ${index} of run ${JSON.stringify(runId)} is over the ${MAX_ENTRY_BYTES} bytes an entry may hold`);
    }
    if (units + text.length > PART_UNITS) close();
    texts.push(text);
    units += text.length + 1;
  }
  close();
  return parts;
}

/** A row of a load: `entry` is NULL when the entry is over the bound (`bytes` says by how much). */
interface EntryRow {
  readonly position?: unknown;
  readonly entry?: unknown;
  readonly bytes?: unknown;
}

/** The run's entries from its rows, ordered by position. */
export function entriesOf(runId: string, rows: readonly unknown[]): JournalEntry[] {
  const entries: JournalEntry[] = [];
  const corrupt = (index: number, what: string) => new RulvarError('journal.corrupt', `run ${JSON.stringify(runId)}: journal entry ${index} ${what}`);
  for (const [index, row] of rows.entries()) {
    const { position, entry, bytes } = (typeof row === 'object' && row !== null ? row : {}) as EntryRow;
    // Positions come back as numbers, or as strings under a pool's own type parsers.
    const at = typeof position === 'number' || typeof position === 'string' ? Number(position) : Number.NaN;
    if (at !== index) throw corrupt(index, Number.isInteger(at) && at > index ? 'is missing' : 'is out of place');
    if (entry === null && Number(bytes) > MAX_ENTRY_BYTES) throw corrupt(index, `is ${String(bytes)} bytes, over the ${MAX_ENTRY_BYTES} an entry may hold`);
    if (typeof entry !== 'string') throw corrupt(index, 'is not text');
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry);
    } catch {
      throw corrupt(index, 'is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw corrupt(index, 'is not a JSON object');
    entries.push(parsed as JournalEntry);
  }
  return entries;
}

/** The select list of a load: the entry's text only when it is within the bound. */
export const ENTRY_COLUMNS = (alias: string) =>
  `${alias}.position, CASE WHEN octet_length(${alias}.entry::text) <= ${MAX_ENTRY_BYTES} THEN ${alias}.entry::text END AS entry, octet_length(${alias}.entry::text) AS bytes`;
