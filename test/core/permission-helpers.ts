/** Shared pieces of the permission suites: a call to judge and a recording callback. */
import type { PermissionDecision, ToolCallInfo } from '../../src/core/index.js';

/** An input value that no reason may ever contain. */
export const SECRET = 'hunter2-do-not-log';

export function callInfo(over: Partial<ToolCallInfo> = {}): ToolCallInfo {
  return { callId: 'call-1', toolName: 'gh_create_comment', input: { body: SECRET }, needsApproval: false, ...over };
}

/** A hook (or canUseTool) that records what it saw and answers `answer`. */
export function spy(answer: PermissionDecision | Promise<PermissionDecision> = undefined) {
  const seen: ToolCallInfo[] = [];
  const inputs: unknown[] = [];
  const hook = (call: ToolCallInfo) => (seen.push(call), answer);
  const canUseTool = (_name: string, input: unknown, call: ToolCallInfo) => (inputs.push(input), seen.push(call), answer);
  return { seen, inputs, hook, canUseTool };
}
