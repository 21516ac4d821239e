/**
 * One turn's tool calls, in order, each through `dispatchTool`. A call whose result is
 * journaled is not run again. At the first `ask`, the results so far and the ask are journaled
 * in one append (the turn-boundary checkpoint) and the agent parks; the calls after it wait.
 * The turn's remaining results are journaled at its end, before the next model request.
 */
import { dispatchTool, runApprovedCall, type ApprovedCallOptions } from '../bus/dispatch.js';
import { isSharedAudit } from '../permissions/judgement.js';
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import type { Resolution } from './approvals.js';
import type { JournalEntry } from '../journal/entries.js';
import { jsonResult, ownJson } from '../journal/json-safe.js';
import type { LiveRun } from './live-run.js';
import type { ToolCallPart } from '../model/types.js';
import { entry, toolEntry } from './entries.js';
import type { Spawn } from './spawn.js';
import { toolAsked, toolDone, toolResolved, toolSpan } from './tracing.js';
import type { TracedSpan } from './trace-span.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;
type Tool = Extract<JournalEntry, { type: 'tool' }>;

/** `done` holds the results of this turn already journaled, by call index. */
export async function runTurnCalls(
  run: LiveRun,
  spawn: Spawn,
  turn: number,
  calls: readonly ToolCallPart[],
  done: readonly (Tool | undefined)[] = [],
): Promise<ToolResult[]> {
  const { key, toolset } = spawn;
  const { log, runId } = run;
  const signal = run.controller.signal;
  // The scopes as given: the chain merges them per call anyway, and merging a merged config
  // again would only validate it twice.
  const permissions = spawn.permissionScopes;
  const results: ToolResult[] = [];
  let unjournaled: JournalEntry[] = [];
  /** The span of the call in hand, when traced: its result ends it. */
  let span: TracedSpan | undefined;
  const clean = spawn.cleanResult;
  const record = (index: number, call: ToolCallPart, given: ToolResult, audit: PermissionAudit, input: unknown, resolution?: Resolution) => {
    const result = clean === undefined ? given : clean(given);
    results.push(result);
    toolDone(span, result, audit, spawn.trace?.run.content === true);
    span = undefined;
    unjournaled.push(toolEntry(key, turn, index, result, audit));
    if (run.events.wants('tool:end')) {
      run.events.emit('tool:end', { runId, agentKey: key, callId: call.id, toolName: call.name, input, result, audit, ...(resolution === undefined ? {} : { resolution }) });
    }
  };

  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index] as ToolCallPart;
    const journaled = done[index];
    if (journaled !== undefined) {
      results.push(journaled.result);
      continue;
    }
    if (index >= spawn.maxToolCallsPerTurn) {
      // Past the bound nothing is dispatched; each call still gets the result a model expects.
      record(index, call, overLimitResult(call, spawn.maxToolCallsPerTurn, calls.length), overLimitAudit(spawn.maxToolCallsPerTurn), call.input);
      continue;
    }
    // Most runs never ask: no key to build and look up then.
    let approval = log.approvals.size === 0 ? undefined : log.approvals.get(approvalKeyOf(spawn, turn, index));
    span = toolSpan(spawn, call);
    const askedBefore = approval !== undefined;
    if (approval === undefined) {
      if (run.events.wants('tool:start')) run.events.emit('tool:start', { runId, agentKey: key, callId: call.id, toolName: call.name, input: call.input });
      const leased = run.beforeEffect();
      if (leased !== undefined) await leased;
      const onProgress = progressTo(run, key, call);
      const outcome = await dispatchTool(toolset, call, { permissions, signal, idempotencyKey: idempotencyKey(spawn, turn, index), ...onProgress });
      if (outcome.status === 'done') {
        record(index, call, jsonResult(outcome.result), ownAudit(outcome.audit), outcome.input);
        continue;
      }
      const approvalKey = approvalKeyOf(spawn, turn, index);
      const input = jsonInput(outcome.input);
      if (input === NOT_JSON) {
        // Only a host's hook can make an input JSON cannot hold: the call is refused, not the run.
        const output = `the input of ${call.name}, as a permission hook rewrote it, is not JSON`;
        record(index, call, ownJson({ callId: call.id, toolName: call.name, isError: true, output, reason: 'invalid_input' }), ownAudit(outcome.audit), outcome.input);
        continue;
      }
      approval = askEntry(approvalKey, key, turn, index, call, input, outcome.audit, spawn);
      await log.write(...unjournaled, approval);
      unjournaled = [];
      const { toolName, audit, deadlineAt } = approval;
      run.events.emit('approval:pending', { key: approval.key, runId, toolName, input, audit, ...(deadlineAt === undefined ? {} : { deadlineAt }) });
    }
    toolAsked(span, approval.key, askedBefore);
    const resolution = log.resolutions.get(approval.key) ?? (await run.park(approval));
    toolResolved(span, resolution);
    const approved = { signal, idempotencyKey: idempotencyKey(spawn, turn, index), ...progressTo(run, key, call) };
    if (resolution.decision === 'allow') await run.beforeEffect();
    record(index, call, jsonResult(await settle(toolset, call, approval, resolution, approved)), approval.audit, approval.input, resolution);
  }
  const writing = unjournaled.length > 0 ? log.write(...unjournaled) : undefined;
  if (writing !== undefined) await writing;
  return results;
}

/**
 * The turn's results when every call of it is journaled (a replayed turn), else undefined.
 * A resume replays whole agents turn by turn; taking a finished turn here spares it the
 * asynchronous pass through runTurnCalls.
 */
export function journaledResults(calls: readonly ToolCallPart[], done: readonly (Tool | undefined)[] | undefined): ToolResult[] | undefined {
  if (done === undefined || done.length < calls.length) return undefined;
  const results: ToolResult[] = [];
  for (let index = 0; index < calls.length; index += 1) {
    const journaled = done[index];
    if (journaled === undefined) return undefined;
    results.push(journaled.result);
  }
  return results;
}

function overLimitResult(call: ToolCallPart, limit: number, asked: number): ToolResult {
  const output = `not run: the answer asked for ${asked} tool calls and one turn runs at most ${limit} (maxToolCallsPerTurn)`;
  return ownJson({ callId: call.id, toolName: call.name, isError: true, output, reason: 'denied' });
}

/** One frozen audit per bound, shared by every call past it. */
const overLimitAudits = new Map<number, PermissionAudit>();

function overLimitAudit(limit: number): PermissionAudit {
  let audit = overLimitAudits.get(limit);
  if (audit === undefined) {
    if (overLimitAudits.size >= 64) overLimitAudits.clear();
    audit = ownJson<PermissionAudit>({ verdict: 'deny', layer: 'default', advisory: [], reason: `more than ${limit} tool calls in one turn (maxToolCallsPerTurn)` });
    overLimitAudits.set(limit, audit);
  }
  return audit;
}

/** Allow runs the tool with the input journaled at ask time; anything else is a denied result. */
function settle(toolset: Spawn['toolset'], call: ToolCallPart, approval: Approval, resolution: Resolution, options: ApprovedCallOptions): Promise<ToolResult> {
  if (resolution.decision === 'allow') return runApprovedCall(toolset, call, approval.input, options);
  const why = resolution.reason ?? (resolution.by === 'timeout' ? 'the approval timed out' : 'the approval was denied');
  return Promise.resolve({ callId: call.id, toolName: call.name, isError: true, output: `permission denied: ${why}`, reason: 'denied' });
}

/** The call's progress as `tool:progress` events, when someone listens as it starts. */
function progressTo(run: LiveRun, agentKey: string, call: ToolCallPart): Pick<ApprovedCallOptions, 'onProgress'> {
  if (!run.events.wants('tool:progress')) return {};
  const { runId } = run;
  return { onProgress: (progress) => run.events.emit('tool:progress', { runId, agentKey, callId: call.id, toolName: call.name, ...progress }) };
}

/** Stable across restarts and safe in a URL: the content hash's head, the ordinal, the position. */
function approvalKeyOf(spawn: Spawn, turn: number, index: number): string {
  return `${spawn.approvalPrefix}-${turn}-${index}`;
}

/**
 * The call's place in the journal, which a re-run after a crash shares; not the model's call
 * id, which is unbounded and may repeat across turns.
 */
function idempotencyKey(spawn: Spawn, turn: number, index: number): string {
  return `${spawn.idempotencyPrefix}-${turn}-${index}`;
}

/** The audit as the journal keeps it: a shared default-allow audit is frozen JSON already. */
function ownAudit(audit: PermissionAudit): PermissionAudit {
  return isSharedAudit(audit) ? audit : ownJson(audit);
}

const NOT_JSON = Symbol('not JSON');

function jsonInput(input: unknown): unknown {
  try {
    return ownJson(input);
  } catch {
    return NOT_JSON;
  }
}

function askEntry(key: string, agent: string, turn: number, index: number, call: ToolCallPart, input: unknown, audit: PermissionAudit, spawn: Spawn): Approval {
  const { approvalDeadlineMs, approvalTimeoutDecision } = spawn.permissions;
  // Journaled at ask time, so a later change of configuration moves neither.
  const deadline =
    approvalDeadlineMs === undefined ? {} : { deadlineAt: new Date(Date.now() + approvalDeadlineMs).toISOString(), timeoutDecision: approvalTimeoutDecision ?? 'deny' };
  return entry({ type: 'approval', key, agent, turn, index, toolName: call.name, callId: call.id, input, audit: ownJson(audit), ...deadline });
}
