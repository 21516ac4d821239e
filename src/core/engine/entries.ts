/**
 * Building journal entries: every entry carries the format version, and the two a model turn
 * writes are built frozen in one step.
 */
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import { JOURNAL_FORMAT, type JournalEntry } from '../journal/entries.js';
import type { ModelResponse } from '../model/types.js';

type Of<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

/**
 * The two entries every model turn writes, built frozen: their members are already the
 * engine's own frozen JSON (a checked response; a jsonResult and an owned audit), so the
 * member-by-member check `sealEntry` makes of other entries would find nothing to copy.
 */
export function turnEntry(agent: string, turn: number, response: ModelResponse): Of<'turn'> {
  return Object.freeze({ v: JOURNAL_FORMAT, type: 'turn', agent, turn, response });
}

export function toolEntry(agent: string, turn: number, index: number, result: ToolResult, audit: PermissionAudit): Of<'tool'> {
  return Object.freeze({ v: JOURNAL_FORMAT, type: 'tool', agent, turn, index, result, audit });
}

type Unversioned<E> = E extends JournalEntry ? Omit<E, 'v'> : never;

/** Entries are written with the format version; a helper keeps call sites short. */
export function entry<F extends Unversioned<JournalEntry>>(fields: F): F & { readonly v: typeof JOURNAL_FORMAT } {
  return { v: JOURNAL_FORMAT, ...fields };
}
