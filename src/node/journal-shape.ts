/**
 * The shape of what a run file's lines hold, as every store may assume it: an entry is an
 * object with a number `v` and a string `type`; the engine checks the rest (run-log.ts). And
 * two things done to entries read back: freezing them (a lease hands the same ones out again)
 * and finding an append already in place (an inbox request whose server died).
 */
import type { JournalEntry } from '../core/journal/entries.js';

export function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { v, type } = value as { v?: unknown; type?: unknown };
  return typeof v === 'number' && typeof type === 'string';
}

/** A line's entries: the entry, or the non-empty list of them; undefined for anything else. */
export function entriesOf(value: unknown): JournalEntry[] | undefined {
  if (Array.isArray(value)) return value.length > 0 && value.every(isEntry) ? value : undefined;
  return isEntry(value) ? [value] : undefined;
}

/** Whether `entries` are in the journal at `expectedLength`, as a server that died after appending them left it. */
export function landed(journal: readonly JournalEntry[], entries: readonly JournalEntry[], expectedLength: number): boolean {
  if (journal.length < expectedLength + entries.length) return false;
  return entries.every((entry, i) => JSON.stringify(journal[expectedLength + i]) === JSON.stringify(entry));
}

/** Freezes what JSON.parse made, in place and all the way down; iterative, as it may be deeper than the stack allows. */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const key in next) stack.push((next as Record<string, unknown>)[key]);
  }
  return value;
}
