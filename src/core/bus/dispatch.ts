/**
 * `dispatchTool`: the one path every call takes, native or imported. It only composes
 * stages that live elsewhere: input validation (schema/), the permission chain
 * (permissions/), `execute` with the post-hook input, result mapping (tool-error.ts) and
 * output validation. Whatever a tool or a server does, the outcome is a value: `done` with a
 * result and the audit, or `ask` when the chain wants a human.
 */
import { signalThatNeverAborts } from '../async.js';
import { evaluatePermission } from '../permissions/chain.js';
import type { PermissionAudit, PermissionConfig } from '../permissions/types.js';
import { admitTool } from '../schema/admitted-tools.js';
import { describeIssues } from '../schema/validate.js';
import { quoteName } from '../tools/names.js';
import type { ResolvedToolset } from './resolve.js';
import { toToolResult } from '../tools/tool-error.js';
import type { ToolDef, ToolErrorReason, ToolResult } from '../tools/types.js';

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface DispatchOptions {
  readonly permissions?: PermissionConfig | readonly PermissionConfig[];
  readonly signal?: AbortSignal;
  /** Handed to the tool as `ToolContext.idempotencyKey`. */
  readonly idempotencyKey?: string;
}

/** What `runApprovedCall` passes on to the tool. */
export type ApprovedCallOptions = Pick<DispatchOptions, 'signal' | 'idempotencyKey'>;

export type DispatchOutcome =
  | { readonly status: 'done'; readonly result: ToolResult; readonly audit: PermissionAudit; readonly input: unknown }
  | { readonly status: 'ask'; readonly audit: PermissionAudit; readonly input: unknown };

export async function dispatchTool(toolset: ResolvedToolset, call: ToolCall, options: DispatchOptions = {}): Promise<DispatchOutcome> {
  if (typeof call?.name !== 'string' || typeof call.id !== 'string') {
    // What a model produced is not trusted to be well-formed, down to the call itself.
    const safe = { id: typeof call?.id === 'string' ? call.id : '', name: typeof call?.name === 'string' ? call.name : '', input: call?.input };
    return refused(safe, 'invalid_input', 'a tool call needs a string id and a string tool name');
  }
  const tool = toolset.get(call.name);
  if (tool === undefined) {
    const known = toolset.tools.map((t) => t.name).join(', ');
    return refused(call, 'invalid_input', `there is no tool named ${quoteName(call.name)}; available tools: ${known}`);
  }
  const validators = admitTool(tool, 'dispatchTool');
  const checked = validators.input.validate(call.input);
  if (!checked.valid) {
    return refused(call, 'invalid_input', describeIssues(`the arguments for ${tool.name} are invalid`, checked.issues));
  }

  const evaluation = await evaluatePermission(options.permissions ?? [], {
    callId: call.id,
    toolName: tool.name,
    input: call.input,
    needsApproval: tool.needsApproval,
    ...(tool.risk === undefined ? {} : { risk: tool.risk }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const { input, ...audit } = evaluation;
  if (audit.verdict === 'ask') return { status: 'ask', audit, input };
  if (audit.verdict === 'deny') {
    const reason = audit.reason ?? `denied by the ${audit.layer} layer`;
    return { status: 'done', result: errorResult(call, tool.name, 'denied', `permission denied: ${reason}`), audit, input };
  }
  // A hook or canUseTool may have rewritten the input, or edited it in place (nothing else
  // in the chain touches it); what runs must still satisfy the schema.
  if (hasCallbacks(options.permissions)) {
    const rechecked = validators.input.validate(input);
    if (!rechecked.valid) {
      const message = describeIssues(`the arguments for ${tool.name}, as a permission hook rewrote them, are invalid`, rechecked.issues);
      return { status: 'done', result: errorResult(call, tool.name, 'invalid_input', message), audit, input };
    }
  }
  const result = await execute(tool, call, input, options);
  return { status: 'done', result: checkOutput(tool, result, validators.output), audit, input };
}

/**
 * Runs a call a human already approved, with the input journaled at ask time: no schema
 * check of the arguments and no chain (both ran before the ask), the output still checked.
 * For the engine, which resumes asks; a host holding an `ask` outcome may use it the same way.
 */
export async function runApprovedCall(toolset: ResolvedToolset, call: ToolCall, input: unknown, options: ApprovedCallOptions = {}): Promise<ToolResult> {
  const tool = toolset.get(call.name);
  if (tool === undefined) return errorResult(call, call.name, 'invalid_input', `there is no tool named ${quoteName(call.name)}`);
  const result = await execute(tool, call, input, options);
  return checkOutput(tool, result, admitTool(tool, 'dispatchTool').output);
}

async function execute(tool: ToolDef, call: ToolCall, input: unknown, options: ApprovedCallOptions): Promise<ToolResult> {
  const signal = options.signal ?? signalThatNeverAborts();
  const { idempotencyKey } = options;
  try {
    const ctx = idempotencyKey === undefined ? { callId: call.id, toolName: tool.name, signal } : { callId: call.id, toolName: tool.name, signal, idempotencyKey };
    const value = await tool.execute(input, ctx);
    return toToolResult(call.id, tool.name, { value });
  } catch (thrown) {
    return toToolResult(call.id, tool.name, { thrown });
  }
}

function checkOutput(tool: ToolDef, result: ToolResult, output: ReturnType<typeof admitTool>['output']): ToolResult {
  if (result.isError || output === undefined) return result;
  const checked = output.validate(result.output);
  if (checked.valid) return result;
  return errorResult(result, tool.name, 'invalid_output', describeIssues(`the output of ${tool.name} does not match its outputSchema`, checked.issues));
}

function errorResult(call: { readonly id: string } | { readonly callId: string }, toolName: string, reason: ToolErrorReason, output: string): ToolResult {
  const callId = 'callId' in call ? call.callId : call.id;
  return { callId, toolName, isError: true, output, reason };
}

/** A call that never reached the chain: it still gets a result and an audit saying why. */
function refused(call: ToolCall, reason: ToolErrorReason, message: string): DispatchOutcome {
  const audit: PermissionAudit = { verdict: 'deny', layer: 'validation', advisory: [], reason: message.split('\n')[0] ?? message };
  return { status: 'done', result: errorResult(call, call.name, reason, message), audit, input: call.input };
}

function hasCallbacks(permissions: DispatchOptions['permissions']): boolean {
  const configs = permissions === undefined ? [] : Array.isArray(permissions) ? permissions : [permissions];
  return configs.some((config: PermissionConfig | undefined) => (config?.hooks?.length ?? 0) > 0 || config?.canUseTool !== undefined);
}
