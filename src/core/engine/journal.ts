/**
 * The journal's entries and the store contract (spec/runtime.md, "Journals"). Everything that
 * costs money or touches the world is an entry before it counts; a run is its entries, so
 * any engine over the same store can continue it. Entries are plain JSON, never secrets.
 */
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import type { ModelResponse } from './model.js';

/** Format version written in every entry; a reader refuses versions it does not know. */
export const JOURNAL_FORMAT = 1;

export interface JournalEntryBase {
  readonly v: typeof JOURNAL_FORMAT;
}

export type JournalEntry =
  | (JournalEntryBase & { readonly type: 'run:start'; readonly workflow: string; readonly args: unknown; readonly at: string })
  | (JournalEntryBase & { readonly type: 'step'; readonly name: string; readonly value: unknown })
  | (JournalEntryBase & {
      readonly type: 'spawn';
      readonly agent: string;
      readonly agentType?: string;
      readonly model: string;
      readonly prompt: string;
      readonly toolsetHash: string;
      readonly authorityHash: string;
    })
  /** A model response, journaled before the first of its tool calls is dispatched. */
  | (JournalEntryBase & { readonly type: 'turn'; readonly agent: string; readonly turn: number; readonly response: ModelResponse })
  /** A tool call's result; all of a turn's results are journaled by its boundary. */
  | (JournalEntryBase & {
      readonly type: 'tool';
      readonly agent: string;
      readonly turn: number;
      readonly index: number;
      readonly result: ToolResult;
      readonly audit: PermissionAudit;
    })
  /**
   * An ask: the turn-boundary checkpoint is this entry together with the `tool` entries of the
   * same turn journaled in the same append (the history before it is the agent's earlier
   * entries, so it is not copied into every checkpoint).
   */
  | (JournalEntryBase & {
      readonly type: 'approval';
      readonly key: string;
      readonly agent: string;
      readonly turn: number;
      readonly index: number;
      readonly toolName: string;
      readonly callId: string;
      readonly input: unknown;
      readonly audit: PermissionAudit;
      readonly deadlineAt?: string;
      readonly timeoutDecision?: 'allow' | 'deny';
    })
  | (JournalEntryBase & {
      readonly type: 'resolution';
      readonly key: string;
      readonly decision: 'allow' | 'deny';
      readonly by: ResolvedBy;
      readonly reason?: string;
      readonly at: string;
    })
  | (JournalEntryBase & { readonly type: 'agent:end'; readonly agent: string; readonly text: string; readonly turns: number })
  | (JournalEntryBase & { readonly type: 'run:end'; readonly value: unknown });

export type ResolvedBy = 'external' | 'operator' | 'timeout';

export type JournalEntryType = JournalEntry['type'];

/**
 * Entries travel as frozen plain JSON: the engine appends entries that are frozen all the way
 * down, so a store may keep them by reference (the memory store does) or serialize them. A
 * store's `load` returns either fresh entries (parsed: the engine freezes its own copy) or
 * entries frozen all the way down, which the engine keeps as they are: a frozen entry is
 * never checked deeper than its own members.
 */
export interface JournalStore {
  /** Every entry of the run in order; `[]` for a run never written. */
  load(runId: string): Promise<JournalEntry[]>;
  /**
   * Appends `entries` atomically (all or none survive a crash), only if the run holds exactly
   * `expectedLength` entries; otherwise rejects with RulvarError `journal.conflict`.
   */
  append(runId: string, entries: JournalEntry[], expectedLength: number): Promise<void>;
}

/** Options of `fileJournal` (the Node entry; the edge entry refuses it with `journal.unavailable`). */
export interface FileJournalOptions {
  /** The directory holding one JSONL file per run; created when missing. */
  readonly dir: string;
}
