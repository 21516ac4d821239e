/**
 * The value an `execute` returns to say "this call failed, and here is what the model
 * should read": an error tool result without a throw. MCP tools never throw past policy;
 * they return one of these. The brand is a registered symbol so that a value made by one
 * copy of this package is recognised by another (a Worker bundle and its tests, say).
 */
import { describeCause } from '../errors.js';
import type { ToolErrorReason, ToolResult } from './types.js';

const TOOL_ERROR = Symbol.for('rulvar.toolError');

export interface ToolError {
  readonly [TOOL_ERROR]: true;
  readonly reason: ToolErrorReason;
  /** A message a model can read and act on. */
  readonly message: string;
}

export function toolError(reason: ToolErrorReason, message: string): ToolError {
  return Object.freeze({ [TOOL_ERROR]: true as const, reason, message });
}

export function isToolError(value: unknown): value is ToolError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_ERROR] === true;
}

/**
 * Turns what an `execute` produced (or threw) into the canonical ToolResult. A thrown value
 * becomes reason `execution`; its message is kept, since a tool's own error is what the
 * model needs to see.
 */
export function toToolResult(
  callId: string,
  toolName: string,
  outcome: { readonly value: unknown } | { readonly thrown: unknown },
): ToolResult {
  if ('thrown' in outcome) {
    return { callId, toolName, isError: true, output: describeCause(outcome.thrown), reason: 'execution' };
  }
  const { value } = outcome;
  if (isToolError(value)) {
    return { callId, toolName, isError: true, output: value.message, reason: value.reason };
  }
  return { callId, toolName, isError: false, output: value };
}
