/**
 * The permission chain's public shapes (spec/runtime.md, "The permission chain"). Every
 * call, native or imported from MCP, is judged by the same chain:
 *
 *   hooks -> deny rules -> ask rules -> canUseTool -> terminal default
 *
 * These types are data plus a few host callbacks; nothing here is platform specific.
 */
import type { ToolRisk } from '../tools/types.js';

export type Verdict = 'allow' | 'deny' | 'ask';

/** A declared risk, or `'undeclared'` for a tool that carries none (every MCP tool by default). */
export type RiskClass = ToolRisk | 'undeclared';

/** The three shipped presets (spec/mcp.md's table); each compiles to ordinary rules. */
export type PermissionPreset = 'strict' | 'standard' | 'open';

/**
 * Rules only ever restrict: a matching deny rule denies, a matching ask rule asks, and no
 * rule can allow. A rule names tools (final, prefixed names) or risk classes, never both,
 * so that what a rule means is obvious from reading it.
 */
export type PermissionRule =
  | {
      readonly tool: string | readonly string[];
      readonly risk?: never;
      /** Host-written note carried into the reason a model reads; keep secrets out of it. */
      readonly description?: string;
    }
  | {
      readonly risk: RiskClass | readonly RiskClass[];
      readonly tool?: never;
      readonly description?: string;
    };

/**
 * Advisory only: names domains a tool's input may point at. A match is recorded in the audit
 * and never changes a verdict. `'*.example.com'` matches subdomains of example.com (not the
 * apex itself; list `'example.com'` as well for that).
 */
export interface DomainRule {
  readonly tool: string | readonly string[];
  readonly domains: readonly string[];
}

/** What a hook and `canUseTool` see about the call being judged. */
export interface ToolCallInfo {
  readonly callId: string;
  /** The final (prefixed) name the model used. */
  readonly toolName: string;
  /** The input as it stands at this layer: an earlier hook may have replaced it. */
  readonly input: unknown;
  readonly risk?: ToolRisk;
  readonly needsApproval: boolean;
  /** The dispatch's signal; an aborted evaluation ends in deny (see chain.ts). */
  readonly signal?: AbortSignal;
}

/**
 * What a hook or `canUseTool` may return. A bare verdict decides; `{ verdict, reason? }`
 * decides with a host-written reason (the model reads it on deny); `{ modifiedInput }`
 * replaces the input and lets the chain continue; `undefined` (or `null`) has no opinion.
 * `{ verdict, modifiedInput }` replaces the input and decides in one step.
 */
export type PermissionDecision =
  | Verdict
  | { readonly verdict: Verdict; readonly reason?: string; readonly modifiedInput?: unknown }
  | { readonly modifiedInput: unknown }
  | null
  | undefined;

export type PermissionHook = (call: ToolCallInfo) => PermissionDecision | Promise<PermissionDecision>;

export type CanUseTool = (
  toolName: string,
  input: unknown,
  call: ToolCallInfo,
) => PermissionDecision | Promise<PermissionDecision>;

export interface PermissionConfig {
  readonly preset?: PermissionPreset;
  readonly hooks?: readonly PermissionHook[];
  readonly deny?: readonly PermissionRule[];
  readonly ask?: readonly PermissionRule[];
  readonly canUseTool?: CanUseTool;
  /** Advisory only. */
  readonly domains?: readonly DomainRule[];
  /** Journaled deadline on each ask (used by the engine, carried through merges here). */
  readonly approvalDeadlineMs?: number;
  /** What an expired ask becomes; the engine's default is `'deny'`. */
  readonly approvalTimeoutDecision?: 'deny' | 'allow';
}

/**
 * The layer whose verdict stood. `'validation'` is never produced by the chain: it marks the
 * audit dispatchTool attaches to a call refused before the chain ran (an unknown tool, or
 * input that fails the tool's schema), so every dispatched call carries an audit.
 */
export type PermissionLayer = 'hook' | 'deny-rule' | 'ask-rule' | 'canUseTool' | 'default' | 'validation';

/**
 * The record every evaluation produces (and `tool:end` events carry). It is plain data, safe
 * to journal: it holds tool names, rule objects and reasons, never input values.
 */
export interface PermissionAudit {
  readonly verdict: Verdict;
  readonly layer: PermissionLayer;
  /** The matched rule, when a deny or ask rule decided. */
  readonly rule?: PermissionRule;
  /** The preset that rule was compiled from, when it came from one. */
  readonly preset?: PermissionPreset;
  /** Domain rules that matched the input; they never change the verdict. */
  readonly advisory: readonly DomainRule[];
  /** True when the domain scan hit its budget, so `advisory` may be missing matches. */
  readonly advisoryIncomplete?: true;
  /** Human-readable and secret-free; the text a model reads when the call is denied. */
  readonly reason?: string;
}

/** What `evaluatePermission` resolves to: the audit plus the input the tool should run with. */
export type PermissionEvaluation = PermissionAudit & { readonly input: unknown };
