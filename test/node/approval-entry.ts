/** A journaled approval of tool `lookup`, as the engine writes one, for the engine's unit tests. */
import { entry } from '../../src/core/engine/entries.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';

export type Approval = Extract<JournalEntry, { type: 'approval' }>;

export const ASKED_AUDIT: Approval['audit'] = { verdict: 'ask', layer: 'default', advisory: [] };

export function approvalEntry(key: string, deadlineAt?: string, timeoutDecision?: 'allow' | 'deny', input: unknown = {}): Approval {
  return entry({
    type: 'approval',
    key,
    agent: 'a',
    turn: 0,
    index: 0,
    toolName: 'lookup',
    callId: `call-${key}`,
    input,
    audit: ASKED_AUDIT,
    ...(deadlineAt === undefined ? {} : { deadlineAt }),
    ...(timeoutDecision === undefined ? {} : { timeoutDecision }),
  }) as Approval;
}
