/**
 * The engine's public shapes (spec/runtime.md, "Engine, workflows, agents" and "Approvals and
 * resume"). Kept apart from the code so that every engine file can share them.
 */
import type { RulvarError } from '../errors.js';
import type { ToolsOption } from '../bus/resolve.js';
import type { ToolsetAttestation } from '../bus/attestation.js';
import type { PermissionAudit, PermissionConfig } from '../permissions/types.js';
import type { EngineEventName, EngineListener } from './events.js';
import type { JournalStore, ResolvedBy } from './journal.js';
import type { Message, ModelAdapter } from './model.js';

export interface AgentProfile {
  description?: string;
  model?: string;
  system?: string;
  tools?: ToolsOption;
  permissions?: PermissionConfig;
  maxTurns?: number;
  toolsetAttestation?: ToolsetAttestation;
}

export interface RetryPolicy {
  /** Further attempts after a retryable model error (default 2). */
  maxRetries?: number;
  /** First backoff; doubled per retry, with jitter (default 250 ms). */
  baseDelayMs?: number;
}

export interface EngineOptions {
  adapters: ModelAdapter[];
  journal?: JournalStore;
  defaults?: {
    model?: string;
    profiles?: Record<string, AgentProfile>;
    permissions?: PermissionConfig;
    toolsets?: Record<string, ToolsOption>;
    maxTurns?: number;
    retry?: RetryPolicy;
  };
}

export interface AgentOptions {
  agentType?: string;
  model?: string;
  tools?: ToolsOption;
  permissions?: PermissionConfig;
  system?: string;
  maxTurns?: number;
}

export interface AgentResult {
  text: string;
  toolsetHash: string;
  /** Model turns this agent took. */
  turns: number;
  /** The whole conversation: the user prompt, assistant and tool messages. */
  history: Message[];
}

export interface WorkflowContext {
  readonly runId: string;
  agent(prompt: string, options?: AgentOptions): Promise<AgentResult>;
  step<T>(name: string, run: () => Promise<T> | T): Promise<T>;
}

export interface Workflow<A = unknown, T = unknown> {
  readonly name: string;
  readonly body: (ctx: WorkflowContext, args: A) => Promise<T>;
}

export interface PendingApproval {
  key: string;
  runId: string;
  toolName: string;
  input: unknown;
  audit: PermissionAudit;
  deadlineAt?: string;
}

export type ApprovalDecision = 'allow' | 'deny' | { decision: 'allow' | 'deny'; reason?: string };

export interface ResolveOptions {
  by?: Extract<ResolvedBy, 'external' | 'operator'>;
  reason?: string;
}

export type RunOutcome<T = unknown> =
  | { status: 'completed'; value: T }
  | { status: 'suspended'; approvals: PendingApproval[] }
  | { status: 'failed'; error: RulvarError };

export interface RunHandle<T = unknown> {
  readonly runId: string;
  readonly result: Promise<RunOutcome<T>>;
  on<E extends EngineEventName>(event: E, listener: EngineListener<E>): () => void;
  resolveExternal(key: string, decision: ApprovalDecision, options?: ResolveOptions): Promise<boolean>;
}

export interface RunOptions {
  runId?: string;
  signal?: AbortSignal;
}

export interface ResumeOptions {
  /** Defaults to the journaled args; anything else must equal them. */
  args?: unknown;
  signal?: AbortSignal;
}

export interface Engine {
  run<A, T>(workflow: Workflow<A, T>, args: A, options?: RunOptions): RunHandle<T>;
  resume<A, T>(runId: string, workflow: Workflow<A, T>, options?: ResumeOptions): RunHandle<T>;
  resolveExternal(runId: string, key: string, decision: ApprovalDecision, options?: ResolveOptions): Promise<boolean>;
  /** The approvals still open, after closing those whose deadline passed (by `timeout`). */
  pending(runId: string): Promise<PendingApproval[]>;
  /**
   * When the earliest open approval of the run times out (epoch milliseconds), or undefined
   * when none has a deadline: what a Durable Object passes to `setAlarm`, so that its
   * `alarm()` can call `pending` or `resume` then instead of polling.
   */
  nextDeadline(runId: string): Promise<number | undefined>;
  on(event: 'approval:resolved', listener: EngineListener<'approval:resolved'>): () => void;
}
