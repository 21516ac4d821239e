/**
 * Reading a run file: one line per append, either the entry itself or, for a batch, the array
 * of its entries, so a batch is one line and survives a crash whole or not at all. (Several
 * lines in one write(2) would not: a write cut short, by SIGKILL between two pages or by power
 * loss, can keep the first lines of a batch whole and lose the rest.)
 *
 * The last line may be torn by a crash: missing its newline, or, after a power loss on a file
 * system that extends the size before the data lands, not JSON at all. Such a line is not
 * part of the journal; the scan stops before it and says where, so an append can cut it off.
 * Anything else that is not a journal line is `journal.corrupt`, naming the run and the line:
 * a broken line in the middle is damage no crash of ours leaves, and skipping it would replay
 * a run without a fact it had.
 */
import { RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/engine/journal.js';
import type { JournalFile } from './journal-fs.js';

/** Longest line read (or written): a bound on what one line may make a reader buffer. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 256 * 1024;
const LF = 0x0a;

/** A point between whole lines: its byte offset, and the lines and entries before it. */
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
  // Bytes of the line being read, not yet ended by a newline.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // An unparseable line is a torn tail only if it is the last thing in the file.
  let unparseable: number | undefined;

  for (let position = from.offset; position < size; ) {
    const chunk = new Uint8Array(Math.min(CHUNK_BYTES, size - position));
    const read = await file.read(chunk, position);
    if (read === 0) break;
    position += read;
    let start = 0;
    for (let lf = chunk.indexOf(LF, start); lf !== -1 && lf < read; lf = chunk.indexOf(LF, start)) {
      const lineNo = end.lines + 1;
      if (unparseable !== undefined) throw fail(unparseable, 'is not JSON');
      if (pendingBytes + lf - start > MAX_LINE_BYTES) throw fail(lineNo, `is over ${MAX_LINE_BYTES} bytes`);
      const bytes = pending.length === 0 ? chunk.subarray(start, lf) : concat([...pending, chunk.subarray(start, lf)], pendingBytes + lf - start);
      const parsed = parse(decoder, bytes);
      const offset = end.offset + pendingBytes + lf - start + 1;
      pending = [];
      pendingBytes = 0;
      start = lf + 1;
      if (parsed === NOT_JSON) {
        unparseable = lineNo;
        continue;
      }
      const batch = entriesOf(parsed);
      if (batch === undefined) throw fail(lineNo, 'is not a journal entry (an object with "v" and "type") or a non-empty list of them');
      for (const entry of batch) entries.push(entry);
      end = { offset, lines: lineNo, entries: end.entries + batch.length };
    }
    if (start < read) {
      if (unparseable !== undefined) throw fail(unparseable, 'is not JSON');
      pendingBytes += read - start;
      if (pendingBytes > MAX_LINE_BYTES) throw fail(end.lines + 1, `is over ${MAX_LINE_BYTES} bytes`);
      pending.push(chunk.subarray(start, read));
    }
  }
  return { entries, end };
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

function entriesOf(value: unknown): JournalEntry[] | undefined {
  if (Array.isArray(value)) return value.length > 0 && value.every(isEntry) ? value : undefined;
  return isEntry(value) ? [value] : undefined;
}

/** The shape every store may assume; the engine checks the rest (run-log.ts). */
export function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { v, type } = value as { v?: unknown; type?: unknown };
  return typeof v === 'number' && typeof type === 'string';
}

function concat(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return whole;
}
