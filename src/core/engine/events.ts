/**
 * The events a run handle (and the engine) emit. Listeners are the host's code: whatever one
 * throws, synchronously or as a rejected promise, stays with it and never reaches the run.
 */
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import type { ResolvedBy } from '../journal/entries.js';
import type { ModelDelta } from '../model/types.js';
import type { PendingApproval, RunOutcome } from './types.js';

export interface EngineEvents {
  'agent:start': { runId: string; agentKey: string; agentType?: string; model: string; toolsetHash: string };
  /**
   * A piece of a live turn's answer as the adapter streams it, scrubbed of its secrets. An
   * attempt's text deltas concatenate to the journaled text and its tool-call deltas to the
   * journaled calls; a cut attempt is retried from scratch with the next `attempt` number, so a
   * UI drops what an earlier attempt showed. A replayed turn sends none.
   */
  'turn:delta': { runId: string; agentKey: string; turn: number; attempt: number; delta: ModelDelta };
  'turn:end': { runId: string; agentKey: string; turn: number; usage?: { inputTokens: number; outputTokens: number } };
  'tool:start': { runId: string; agentKey: string; callId: string; toolName: string; input: unknown };
  /** A running call's progress, checked and coalesced (docs/mcp.md, "Progress"). */
  'tool:progress': { runId: string; agentKey: string; callId: string; toolName: string; progress: number; total?: number; message?: string };
  /** `resolution` is present when the call waited for an approval: how that closed. */
  'tool:end': {
    runId: string;
    agentKey: string;
    callId: string;
    toolName: string;
    input: unknown;
    result: ToolResult;
    audit: PermissionAudit;
    resolution?: { decision: 'allow' | 'deny'; by: ResolvedBy; reason?: string };
  };
  'approval:pending': PendingApproval;
  'approval:resolved': { runId: string; key: string; decision: 'allow' | 'deny'; by: ResolvedBy; reason?: string };
  'run:end': { runId: string; outcome: RunOutcome };
}

export type EngineEventName = keyof EngineEvents;
export type EngineListener<E extends EngineEventName> = (event: EngineEvents[E]) => void;

export class Emitter {
  private readonly listeners = new Map<EngineEventName, Set<(event: never) => void>>();

  on<E extends EngineEventName>(name: E, listener: EngineListener<E>): () => void {
    let set = this.listeners.get(name);
    if (set === undefined) this.listeners.set(name, (set = new Set()));
    set.add(listener as (event: never) => void);
    return () => set.delete(listener as (event: never) => void);
  }

  /** Whether anyone listens: hot paths skip building an event nobody reads. */
  wants(name: EngineEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
  }

  emit<E extends EngineEventName>(name: E, event: EngineEvents[E]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        const returned: unknown = (listener as EngineListener<E>)(event);
        // An async listener's rejection would otherwise be an unhandled rejection.
        if (typeof (returned as { catch?: unknown } | null)?.catch === 'function') (returned as Promise<unknown>).catch(() => undefined);
      } catch {
        // Isolated by contract: a broken listener must not break the run it listens to.
      }
    }
  }
}
