/**
 * Reading one batch of lines (journal-encode.ts writes them): the header says how many bytes
 * follow and how many entries they hold; the lines after it are entries, or pieces of one
 * entry's JSON text. The batch is whole when its last line ends exactly at the declared end
 * with every entry there; anything else (a line that is not JSON, a piece out of order, a
 * line across the end, a count that does not add up) is damage, which journal-lines.ts judges
 * torn or corrupt by where the batch lies.
 */
import type { JournalEntry } from '../core/journal/entries.js';
import { entriesOf, isEntry } from './journal-shape.js';

export type BatchProgress = 'more' | 'whole' | 'damaged';

export class BatchReader {
  readonly entries: JournalEntry[] = [];
  /** Pieces of the entry being joined, and how many it has. */
  private pieces: string[] = [];
  private piecesOf = 0;

  private constructor(
    /** The header's line number, for a corrupt batch's message. */
    readonly line: number,
    /** The byte offset the batch ends at. */
    readonly end: number,
    private readonly expected: number,
  ) {}

  /** The batch a header line opens; undefined when the line is not a header. */
  static open(parsed: unknown, line: number, lineEnd: number): BatchReader | undefined {
    const header = (parsed as { batch?: unknown } | null)?.batch;
    if (typeof parsed !== 'object' || Array.isArray(parsed) || typeof header !== 'object' || header === null) return undefined;
    const { bytes, entries } = header as { bytes?: unknown; entries?: unknown };
    if (!isCount(bytes) || !isCount(entries) || Object.keys(parsed as object).length !== 1) return undefined;
    return new BatchReader(line, lineEnd + bytes, entries);
  }

  /** Takes the next whole line of the batch, ending at `lineEnd`. */
  take(parsed: unknown, lineEnd: number): BatchProgress {
    if (lineEnd > this.end || !this.add(parsed)) return 'damaged';
    if (lineEnd < this.end) return 'more';
    return this.pieces.length === 0 && this.entries.length === this.expected ? 'whole' : 'damaged';
  }

  private add(parsed: unknown): boolean {
    const piece = asPiece(parsed);
    if (piece === undefined) {
      const entries = this.pieces.length === 0 ? entriesOf(parsed) : undefined;
      if (entries === undefined) return false;
      for (const entry of entries) this.entries.push(entry);
      return true;
    }
    if (piece.piece !== this.pieces.length || (this.pieces.length > 0 && piece.pieces !== this.piecesOf)) return false;
    this.piecesOf = piece.pieces;
    this.pieces.push(piece.text);
    if (this.pieces.length < this.piecesOf) return true;
    const text = this.pieces.join('');
    this.pieces = [];
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      return false;
    }
    if (!isEntry(entry)) return false;
    this.entries.push(entry);
    return true;
  }
}

function asPiece(value: unknown): { piece: number; pieces: number; text: string } | undefined {
  // An entry is never a piece, whatever members it has.
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isEntry(value)) return undefined;
  const { piece, pieces, text } = value as { piece?: unknown; pieces?: unknown; text?: unknown };
  if (typeof piece !== 'number' || !Number.isSafeInteger(piece) || piece < 0 || !isCount(pieces) || piece >= pieces || typeof text !== 'string') return undefined;
  return { piece, pieces, text };
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
