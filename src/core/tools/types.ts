/**
 * The tool bus's public shapes (spec/runtime.md, "Tools"). Native tools and imported MCP
 * tools are the same ToolDef; nothing downstream can tell them apart.
 */

import type { ReportProgress } from './progress.js';

export type { ReportProgress, ToolProgress } from './progress.js';

/** What a tool can do, as the host labels it; permission presets and rules decide by it. */
export type ToolRisk = 'read' | 'write' | 'network' | 'execute' | 'destructive';

export const TOOL_RISKS: readonly ToolRisk[] = Object.freeze([
  'read',
  'write',
  'network',
  'execute',
  'destructive',
]);

/** A JSON value, as a JSON Schema document or a tool result is made of. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * A bare JSON Schema document (draft 2020-12 subset). Values are `unknown` rather than
 * JsonValue so that schemas typed by other libraries (the SDK's Tool, zod's output) fit.
 */
export type JsonSchema = { readonly [key: string]: unknown } | boolean;

export interface ToolContext {
  readonly callId: string;
  readonly toolName: string;
  readonly signal: AbortSignal;
  /**
   * Set when the engine runs the call: the same on every execution of the same journaled
   * call (a re-run after a crash included) and different for every other call. A tool whose
   * side effect is keyed by it (an idempotency key of a payment API, a unique column) makes
   * the at-least-once window harmless. An imported MCP tool sends it in the `_meta` of its
   * `tools/call` request, under IDEMPOTENCY_META_KEY.
   */
  readonly idempotencyKey?: string;
  /**
   * Set when the caller listens for progress (the engine does when its run handle has a
   * `tool:progress` listener): report how far the call is. Each report becomes a `tool:progress` event; `progress` must be finite and grow
   * with every report, and reports are coalesced to one per 100 ms (tools/progress.ts).
   */
  readonly progress?: ReportProgress;
}

export interface ToolDef {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly version?: string;
  readonly needsApproval: boolean;
  readonly risk?: ToolRisk;
  execute(input: unknown, ctx: ToolContext): Promise<unknown>;
}

/** Per-resolution context a source may use; a cancelled resolution stops waiting on it. */
export interface ToolSourceSession {
  readonly signal?: AbortSignal;
}

export interface ToolSource {
  readonly id: string;
  tools(session?: ToolSourceSession): Promise<ToolDef[]>;
}

export interface McpToolSource extends ToolSource {
  /** Releases the client, the transport and any child process; idempotent; resets the source. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export type ToolErrorReason =
  | 'invalid_input'
  | 'invalid_output'
  | 'server_error'
  | 'timeout'
  | 'denied'
  | 'unavailable'
  | 'execution';

/** The canonical tool result that lands in history (spec/runtime.md). */
export interface ToolResult {
  readonly callId: string;
  readonly toolName: string;
  readonly isError: boolean;
  readonly output: unknown;
  readonly reason?: ToolErrorReason;
}

/** A typed non-text content part kept as-is from an MCP result, in order. */
export interface ContentPart {
  readonly type: string;
  readonly [key: string]: unknown;
}
