/**
 * The engine's public shapes (spec/runtime.md, "Engine, workflows, agents" and "Approvals and
 * resume"). Kept apart from the code so that every engine file can share them.
 */
import type { RulvarError } from '../errors.js';
import type { ToolsOption } from '../bus/resolve.js';
import type { ToolsetAttestation } from '../bus/attestation.js';
import type { PermissionAudit, PermissionConfig } from '../permissions/types.js';
import type { EngineEventName, EngineListener } from './events.js';
import type { JournalStore } from '../journal/store.js';
import type { ResolvedBy } from '../journal/entries.js';
import type { Message, ModelAdapter } from '../model/types.js';
import type { EngineTracer } from './trace-types.js';
import type { WorkOptions } from './work.js';

export interface AgentProfile {
  description?: string;
  model?: string;
  system?: string;
  tools?: ToolsOption;
  permissions?: PermissionConfig;
  maxTurns?: number;
  /** Tool calls of one model answer that run; later ones get error results (default 128). */
  maxToolCallsPerTurn?: number;
  /** How long one model call may take; past it the call is aborted and retried (default 600,000). */
  modelCallMs?: number;
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
  /**
   * How long this engine's hold on a run lasts unless renewed (default 30,000): a holder that
   * died loses it this long after its last renewal; a live one renews every third of it.
   */
  leaseMs?: number;
  /**
   * An OpenTelemetry `Tracer`: spans for each run, agent, model turn and tool call
   * (docs/traces.md). Every call into it is guarded; without one, nothing is traced.
   */
  tracer?: EngineTracer;
  /**
   * Record inputs and outputs on the spans (prompts, answers, tool arguments and results),
   * scrubbed like answers are and cut at 32,768 characters. Default false: names, ids, counts only.
   */
  traceContent?: boolean;
  defaults?: {
    model?: string;
    profiles?: Record<string, AgentProfile>;
    permissions?: PermissionConfig;
    toolsets?: Record<string, ToolsOption>;
    maxTurns?: number;
    /** Tool calls of one model answer that run; later ones get error results (default 128). */
    maxToolCallsPerTurn?: number;
    /** How long one model call may take; past it the call is aborted and retried (default 600,000). */
    modelCallMs?: number;
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
  /** Journaled with the resolution: a non-secret id of who decided (at most 200 characters). */
  decider?: string;
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
  /**
   * The approvals still open, after closing those whose deadline passed (by `timeout`). With
   * no run id, those of every run the store holds (an approvals inbox; engine/inbox.ts): by run
   * in the store's order of run ids, then in the order asked; at most 1,000. A store that
   * cannot list its runs (a Durable Object per run) refuses with `journal.cannot_list`.
   */
  pending(runId?: string): Promise<PendingApproval[]>;
  /**
   * Until `signal` aborts, claims and resumes every run of the store that has work (a resolved
   * approval, a passed deadline, a run whose holder stopped mid-run), `concurrency` at a time
   * (default 8); resolves once the runs it resumed have settled. Refuses with
   * `journal.cannot_list` on a store that cannot list its runs (engine/work.ts).
   */
  work(options: WorkOptions): Promise<void>;
  /**
   * When the earliest open approval of the run times out (epoch milliseconds), or undefined
   * when none has a deadline: what a Durable Object passes to `setAlarm`, so that its
   * `alarm()` can call `pending` or `resume` then instead of polling.
   */
  nextDeadline(runId: string): Promise<number | undefined>;
  on(event: 'approval:resolved', listener: EngineListener<'approval:resolved'>): () => void;
}
