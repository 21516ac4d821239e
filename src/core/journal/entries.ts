/**
 * The journal's entries and the store contract (spec/runtime.md, "Journals"). Everything that
 * costs money or touches the world is an entry before it counts; a run is its entries, so
 * any engine over the same store can continue it. Entries are plain JSON, never secrets.
 */
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import type { ModelResponse } from '../model/types.js';

/** Format version written in every entry; a reader refuses versions it does not know. */
export const JOURNAL_FORMAT = 1;

export interface JournalEntryBase {
  readonly v: typeof JOURNAL_FORMAT;
}

export type JournalEntry =
  /**
   * `incarnation` is random per run: idempotency keys mix it in, so a new run reusing a
   * deleted or foreign journal's run id gets keys of its own (absent in older journals).
   * `trace` is the ids of the span the run started under, when it was traced: a resume's span
   * links to it.
   */
  | (JournalEntryBase & {
      readonly type: 'run:start';
      readonly workflow: string;
      readonly args: unknown;
      readonly at: string;
      readonly incarnation?: string;
      readonly trace?: { readonly traceId: string; readonly spanId: string; readonly traceFlags: number };
    })
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
      /** Who decided, as the host names them (a token's id, a link's id); never a secret. */
      readonly decider?: string;
      readonly at: string;
    })
  | (JournalEntryBase & { readonly type: 'agent:end'; readonly agent: string; readonly text: string; readonly turns: number })
  | (JournalEntryBase & { readonly type: 'run:end'; readonly value: unknown })
  /**
   * The entry lease of a store without `claim` (entry-lease.ts): `holder` has the run until
   * `until` (epoch ms; 0 = released). Replay ignores it.
   */
  | (JournalEntryBase & { readonly type: 'lease'; readonly holder: string; readonly until: number });

export type ResolvedBy = 'external' | 'operator' | 'timeout';

export type JournalEntryType = JournalEntry['type'];
