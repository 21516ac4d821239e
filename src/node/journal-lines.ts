/**
 * Reading a run file: one line per append, either the entry itself or, for a batch, the array
 * of its entries, so a batch is one line and survives a crash whole or not at all. (Several
 * lines in one write(2) would not: a write cut short, by SIGKILL between two pages or by power
 * loss, can keep the first lines of a batch whole and lose the rest.) An append too large for
 * one line is a batch of lines behind a header that says how many bytes follow and how many
 * entries they hold (journal-encode.ts); it counts only once all of it is there and whole.
 *
 * The end of the file may be torn by a crash: a last line missing its newline, or, after a
 * power loss on a file system that extends the size before the data lands, not JSON at all;
 * or a batch of lines cut or damaged anywhere before its declared end, when that end is at or
 * past the end of the file. A torn tail is not part of the journal; the scan stops before it
 * and says where, so an append can cut it off. Anything else that is not a journal line is
 * `journal.corrupt`, naming the run and the line: damage in the middle is nothing a crash of
 * ours leaves, and skipping it would replay a run without a fact it had.
 */
import { RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { BatchReader } from './journal-batch.js';
import type { JournalFile } from './journal-fs.js';
import { entriesOf } from './journal-shape.js';
import { joinBytes } from '../core/bytes.js';

/** Longest line read (or written): a bound on what one line may make a reader buffer. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 256 * 1024;
const LF = 0x0a;

/** A point between whole lines (never inside a batch): its byte offset, and the lines and entries before it. */
export interface LinePosition {
  readonly offset: number;
  readonly lines: number;
  readonly entries: number;
}

export const START_OF_FILE: LinePosition = { offset: 0, lines: 0, entries: 0 };

/**
 * The entries of the whole lines from `from` to `size` (the file's size, stable under the
 * lock), and the position after the last of them (anything past it is a torn tail).
 */
export async function scanLines(file: JournalFile, from: LinePosition, size: number, runId: string): Promise<{ entries: JournalEntry[]; end: LinePosition }> {
  const entries: JournalEntry[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fail = (line: number, why: string) => new RulvarError('journal.corrupt', `run ${JSON.stringify(runId)}: line ${line} of its journal ${why}`);
  let end = from;
  /** Lines read so far, whole or not part of the journal yet (inside a batch). */
  let lines = from.lines;
  let batch: BatchReader | undefined;
  // Bytes of the line being read, not yet ended by a newline.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // An unparseable line is a torn tail only if it is the last thing in the file.
  let unparseable: number | undefined;
  const torn = () => ({ entries, end });
  /** Damage inside a batch: torn when the batch reaches the end of the file, corrupt when something follows it. */
  const damaged = (open: BatchReader) => {
    if (open.end >= size) return torn();
    throw fail(open.line, 'begins a batch whose lines are damaged or do not add up to it');
  };

  for (let position = from.offset; position < size; ) {
    const chunk = new Uint8Array(Math.min(CHUNK_BYTES, size - position));
    const read = await file.read(chunk, position);
    if (read === 0) break;
    const chunkStart = position;
    position += read;
    let start = 0;
    for (let lf = chunk.indexOf(LF, start); lf !== -1 && lf < read; lf = chunk.indexOf(LF, start)) {
      lines += 1;
      if (unparseable !== undefined) throw fail(unparseable, 'is not JSON');
      const length = pendingBytes + lf - start;
      if (length > MAX_LINE_BYTES) {
        if (batch === undefined) throw fail(lines, `is over ${MAX_LINE_BYTES} bytes`);
        return damaged(batch);
      }
      const bytes = pending.length === 0 ? chunk.subarray(start, lf) : joinBytes([...pending, chunk.subarray(start, lf)], length);
      const lineEnd = chunkStart + lf + 1;
      pending = [];
      pendingBytes = 0;
      start = lf + 1;
      const parsed = parse(decoder, bytes);
      if (batch !== undefined) {
        const done = batch.take(parsed, lineEnd);
        if (done === 'damaged') return damaged(batch);
        if (done === 'whole') {
          for (const entry of batch.entries) entries.push(entry);
          end = { offset: lineEnd, lines, entries: end.entries + batch.entries.length };
          batch = undefined;
        }
        continue;
      }
      if (parsed === NOT_JSON) {
        unparseable = lines;
        continue;
      }
      const opened = BatchReader.open(parsed, lines, lineEnd);
      if (opened !== undefined) {
        // Declared past the end of the file: a batch cut short, torn whatever it holds.
        if (opened.end > size) return torn();
        batch = opened;
        continue;
      }
      const single = entriesOf(parsed);
      if (single === undefined) throw fail(lines, 'is not a journal entry (an object with "v" and "type") or a non-empty list of them');
      for (const entry of single) entries.push(entry);
      end = { offset: lineEnd, lines, entries: end.entries + single.length };
    }
    if (start < read) {
      if (unparseable !== undefined) throw fail(unparseable, 'is not JSON');
      pendingBytes += read - start;
      if (pendingBytes > MAX_LINE_BYTES) {
        if (batch === undefined) throw fail(lines + 1, `is over ${MAX_LINE_BYTES} bytes`);
        return damaged(batch);
      }
      pending.push(chunk.subarray(start, read));
    }
  }
  return torn();
}

const NOT_JSON = Symbol('not JSON');

function parse(decoder: TextDecoder, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    // Invalid UTF-8 or invalid JSON: both are what a torn write leaves.
    return NOT_JSON;
  }
}
