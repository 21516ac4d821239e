/**
 * What one append writes: its bytes, refused before any file is touched when an entry is not
 * what the journal could read back. An append that fits one line (at most MAX_LINE_BYTES, the
 * bound a reader buffers) is that line: the entry, or the array of a batch's entries. A
 * larger one (seven tool results of 10 MB make a 70 MB turn boundary) is a batch of lines:
 *
 *   {"batch":{"bytes":B,"entries":N}}      the header: the B bytes that follow are the batch
 *   <entry>                                one line per entry that fits a line
 *   {"piece":0,"pieces":3,"text":"…"}      an entry that does not, as pieces of its JSON text
 *
 * written with one positional write like any append. The header is the commit marker: a batch
 * counts only once all B bytes after it are whole lines holding N entries, so a crash that
 * keeps part of it leaves none of it (journal-lines.ts reads it as a torn tail).
 */
import { ConfigError, describeCause } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { utf8Length } from '../core/schema/byte-size.js';
import { MAX_LINE_BYTES } from './journal-lines.js';
import { isEntry } from './journal-shape.js';
import { joinBytes } from '../core/bytes.js';

/**
 * UTF-16 units of entry text per piece. A piece's text is part of JSON.stringify's output, so
 * it holds no control characters: quoted again it takes at most 3 bytes a unit (a quote or a
 * backslash 2, a character past U+07FF 3), 48 MiB, well inside a line.
 */
export const PIECE_UNITS = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/** What an append writes: its bytes, and how many lines they are. */
export interface EncodedAppend {
  readonly bytes: Uint8Array;
  readonly lines: number;
}

/** The append's bytes (undefined for no entries). */
export function encodeAppend(runId: string, entries: JournalEntry[]): EncodedAppend | undefined {
  if (!Array.isArray(entries)) throw new ConfigError('config.invalid_value', `fileJournal: the entries appended to run ${JSON.stringify(runId)} must be a list`);
  if (entries.length === 0) return undefined;
  const wrong = entries.findIndex((entry) => !isEntry(entry));
  if (wrong >= 0) {
    throw new ConfigError('config.invalid_value', `fileJournal: entry ${wrong} appended to run ${JSON.stringify(runId)} is not a journal entry (an object with a number "v" and a string "type")`);
  }
  const texts = entries.map((entry) => json(runId, entry));
  // Worst case 3 bytes a unit; only a batch that may not fit is measured exactly.
  const units = texts.reduce((sum, text) => sum + text.length + 1, 1);
  if (units * 3 <= MAX_LINE_BYTES || utf8Bytes(texts) <= MAX_LINE_BYTES) {
    return { bytes: encoder.encode(`${texts.length === 1 ? texts[0] : `[${texts.join(',')}]`}\n`), lines: 1 };
  }
  return batchOf(texts);
}

/** The batch-of-lines form of entries already serialized (exported for the tests that tear batches). */
export function batchOf(texts: readonly string[]): EncodedAppend {
  const body = texts.flatMap((text) => linesOf(text)).map((line) => encoder.encode(line));
  const bytes = body.reduce((sum, line) => sum + line.byteLength, 0);
  return { bytes: joinBytes([encoder.encode(`${JSON.stringify({ batch: { bytes, entries: texts.length } })}\n`), ...body]), lines: body.length + 1 };
}

function json(runId: string, entry: JournalEntry): string {
  try {
    return JSON.stringify(entry);
  } catch (error) {
    throw new ConfigError('config.invalid_value', `fileJournal: the entries appended to run ${JSON.stringify(runId)} are not JSON (${describeCause(error)})`);
  }
}

/** The entry's line, or its pieces' lines when it is longer than a line may be. */
function linesOf(text: string): string[] {
  if (text.length * 3 < MAX_LINE_BYTES || utf8Length(text) < MAX_LINE_BYTES) return [`${text}\n`];
  const slices: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + PIECE_UNITS, text.length);
    // A surrogate pair stays in one piece: a lone half would not survive as UTF-8.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    slices.push(text.slice(start, end));
    start = end;
  }
  return slices.map((slice, piece) => `${JSON.stringify({ piece, pieces: slices.length, text: slice })}\n`);
}

/** The UTF-8 size of the one-line form (the array of the entries, or the entry, and a newline). */
function utf8Bytes(texts: readonly string[]): number {
  let bytes = texts.length === 1 ? 1 : texts.length + 2;
  for (const text of texts) bytes += utf8Length(text);
  return bytes;
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
