/**
 * `dispatchTool`: the one path every call takes, native or imported. It only composes
 * stages that live elsewhere: input validation (schema/), the permission chain
 * (permissions/), `execute` with the post-hook input, result mapping (tool-error.ts) and
 * output validation. Whatever a tool or a server does, the outcome is a value: `done` with a
 * result and the audit, or `ask` when the chain wants a human.
 */
import { signalThatNeverAborts } from '../async.js';
import { CALLER_SIGNAL } from '../mcp/caller-signal.js';
import { judgePermission } from '../permissions/chain.js';
import type { PermissionAudit, PermissionConfig, ToolCallInfo } from '../permissions/types.js';
import { admitTool } from '../schema/admitted-tools.js';
import { describeIssues } from '../schema/validate.js';
import { quoteName } from '../tools/names.js';
import { ProgressGate } from './progress-gate.js';
import type { ResolvedToolset } from './resolve.js';
import { capResult, resultCapOf } from './result-cap.js';
import { toToolResult } from '../tools/tool-error.js';
import type { ReportProgress, ToolContext, ToolDef, ToolErrorReason, ToolProgress, ToolResult } from '../tools/types.js';

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
  /**
   * A result whose output is larger than this as JSON (bytes) becomes an error result with
   * reason `invalid_output` (result-cap.ts). Default MAX_RESULT_BYTES, 16 MiB.
   */
  readonly maxResultBytes?: number;
  /**
   * Told of the tool's progress while it runs (an MCP server's `notifications/progress`, a
   * native tool's `ctx.progress`): checked and coalesced to one report per
   * PROGRESS_INTERVAL_MS (bus/progress-gate.ts), never after the call settles.
   */
  readonly onProgress?: (progress: ToolProgress) => void;
}

/** What `runApprovedCall` passes on to the tool. */
export type ApprovedCallOptions = Pick<DispatchOptions, 'signal' | 'idempotencyKey' | 'maxResultBytes' | 'onProgress'>;

export type DispatchOutcome =
  | { readonly status: 'done'; readonly result: ToolResult; readonly audit: PermissionAudit; readonly input: unknown }
  | { readonly status: 'ask'; readonly audit: PermissionAudit; readonly input: unknown };

/** The options of a call given none: a constant, not an object made per call. */
const NO_OPTIONS: DispatchOptions = Object.freeze({});

export async function dispatchTool(toolset: ResolvedToolset, call: ToolCall, options: DispatchOptions = NO_OPTIONS): Promise<DispatchOutcome> {
  const cap = resultCapOf(options.maxResultBytes);
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

  const judged = judgePermission(options.permissions, callInfo(call, tool, options.signal));
  // Awaited only when a hook or canUseTool made it a promise: most calls need no tick here.
  const { audit, input } = judged instanceof Promise ? await judged : judged;
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
  const result = capResult(await execute(tool, call, input, options), cap);
  return { status: 'done', result: checkOutput(tool, result, validators.output), audit, input };
}

/**
 * Runs a call a human already approved, with the input journaled at ask time: no schema
 * check of the arguments and no chain (both ran before the ask), the output still checked.
 * For the engine, which resumes asks; a host holding an `ask` outcome may use it the same way.
 */
export async function runApprovedCall(toolset: ResolvedToolset, call: ToolCall, input: unknown, options: ApprovedCallOptions = {}): Promise<ToolResult> {
  const cap = resultCapOf(options.maxResultBytes);
  const tool = toolset.get(call.name);
  if (tool === undefined) return errorResult(call, call.name, 'invalid_input', `there is no tool named ${quoteName(call.name)}`);
  const result = capResult(await execute(tool, call, input, options), cap);
  return checkOutput(tool, result, admitTool(tool, 'dispatchTool').output);
}

/** What the chain sees of a call; `risk` and `signal` only when there are some. */
function callInfo(call: ToolCall, tool: ToolDef, signal: AbortSignal | undefined): ToolCallInfo {
  const info: { -readonly [K in keyof ToolCallInfo]: ToolCallInfo[K] } = { callId: call.id, toolName: tool.name, input: call.input, needsApproval: tool.needsApproval };
  if (tool.risk !== undefined) info.risk = tool.risk;
  if (signal !== undefined) info.signal = signal;
  return info;
}

/** Never rejects: a throw or a rejection is the result. Not async, as it runs on every call. */
function execute(tool: ToolDef, call: ToolCall, input: unknown, options: ApprovedCallOptions): Promise<ToolResult> {
  const gate = options.onProgress === undefined ? undefined : new ProgressGate(options.onProgress);
  const failed = (thrown: unknown) => {
    gate?.close();
    return toToolResult(call.id, tool.name, { thrown });
  };
  let running: Promise<unknown>;
  try {
    running = Promise.resolve(tool.execute(input, new CallContext(call.id, tool.name, options.signal, options.idempotencyKey, gate?.report)));
  } catch (thrown) {
    return Promise.resolve(failed(thrown));
  }
  return running.then((value) => {
    gate?.close();
    try {
      return toToolResult(call.id, tool.name, { value });
    } catch (thrown) {
      // A value that throws when read (a host's proxy) is the tool failing, not dispatchTool.
      return failed(thrown);
    }
  }, failed);
}

/**
 * What `execute` is handed. Without a caller signal, `signal` is made on first read: Node
 * spends more on one AbortSignal (about 10 µs, and garbage that is slow to collect) than on
 * the rest of an in-process MCP call, and most tools never look. The MCP call path reads
 * CALLER_SIGNAL instead, which says "none" without making one. Each call still gets a signal
 * of its own, so a listener a tool leaves on it goes away with the call.
 */
class CallContext implements ToolContext {
  declare readonly idempotencyKey?: string;
  declare readonly progress?: ReportProgress;
  readonly [CALLER_SIGNAL]: AbortSignal | undefined;
  private ownSignal: AbortSignal | undefined;

  constructor(
    readonly callId: string,
    readonly toolName: string,
    callerSignal: AbortSignal | undefined,
    idempotencyKey: string | undefined,
    progress: ReportProgress | undefined,
  ) {
    this[CALLER_SIGNAL] = callerSignal;
    // Absent rather than undefined, as a tool inspecting its context saw it before.
    if (idempotencyKey !== undefined) this.idempotencyKey = idempotencyKey;
    if (progress !== undefined) this.progress = progress;
  }

  get signal(): AbortSignal {
    return this[CALLER_SIGNAL] ?? (this.ownSignal ??= signalThatNeverAborts());
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
  if (permissions === undefined) return false;
  if (!isConfigList(permissions)) return configHasCallbacks(permissions);
  return permissions.some(configHasCallbacks);
}

function isConfigList(permissions: NonNullable<DispatchOptions['permissions']>): permissions is readonly PermissionConfig[] {
  return Array.isArray(permissions);
}

function configHasCallbacks(config: PermissionConfig | undefined): boolean {
  return (config?.hooks?.length ?? 0) > 0 || config?.canUseTool !== undefined;
}
