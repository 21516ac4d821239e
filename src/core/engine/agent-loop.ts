/**
 * The agent loop: a model turn, its tool calls dispatched in order, their results as one
 * `tool` message, the next turn. It doubles as replay: every turn, result, ask and resolution
 * already in the journal is taken from there, so a resumed agent pays for nothing twice and
 * continues from its last checkpoint. Nothing a tool or a server does throws past it.
 */
import { dispatchTool, runApprovedCall } from '../bus/dispatch.js';
import { RulvarError } from '../errors.js';
import type { ToolResult } from '../tools/types.js';
import type { Resolution } from './approvals.js';
import type { JournalEntry } from './journal.js';
import type { LiveRun } from './live-run.js';
import { modelFailed, type Message, type ModelResponse, type ToolCallPart } from './model.js';
import { callModel } from './model-call.js';
import { jsonClone, jsonResult } from './json-safe.js';
import { entry } from './run-log.js';
import type { Spawn } from './spawn.js';
import type { AgentResult, RetryPolicy } from './types.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;

export async function runAgent(run: LiveRun, spawn: Spawn, retry: RetryPolicy | undefined): Promise<AgentResult> {
  const { key, toolset } = spawn;
  const log = run.log;
  if (!log.spawns.has(key)) {
    const { agentType, modelRef: model, prompt } = spawn;
    await log.write(entry({ type: 'spawn', agent: key, ...(agentType === undefined ? {} : { agentType }), model, prompt, toolsetHash: toolset.toolsetHash, authorityHash: toolset.authorityHash }));
    run.events.emit('agent:start', { runId: run.runId, agentKey: key, ...(agentType === undefined ? {} : { agentType }), model, toolsetHash: toolset.toolsetHash });
  }
  const history: Message[] = [{ role: 'user', text: spawn.prompt }];
  const tools = toolset.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  for (let turn = 0; ; turn += 1) {
    let response: ModelResponse | undefined = log.turns.get(`${key}/${turn}`)?.response;
    if (response === undefined) {
      const request = { model: spawn.model, ...(spawn.system === undefined ? {} : { system: spawn.system }), messages: history.slice(), tools };
      response = await callModel(spawn.adapter, request, run.controller.signal, retry);
      response = jsonOrFail(response, spawn);
      await log.write(entry({ type: 'turn', agent: key, turn, response }));
      run.events.emit('turn:end', { runId: run.runId, agentKey: key, turn, ...(response.usage === undefined ? {} : { usage: response.usage }) });
    }
    history.push({ role: 'assistant', text: response.text, toolCalls: response.toolCalls });
    if (response.toolCalls.length === 0) {
      if (!log.agentEnds.has(key)) await log.write(entry({ type: 'agent:end', agent: key, text: response.text, turns: turn + 1 }));
      return { text: response.text, toolsetHash: toolset.toolsetHash, turns: turn + 1, history };
    }
    if (turn + 1 >= spawn.maxTurns) {
      throw new RulvarError('agent.max_turns', `the agent used its ${spawn.maxTurns} model turns and still asked for tools`);
    }
    history.push({ role: 'tool', results: await runTurnCalls(run, spawn, turn, response.toolCalls) });
  }
}

/** The calls of one turn, in order; their results are journaled by the turn boundary. */
async function runTurnCalls(run: LiveRun, spawn: Spawn, turn: number, calls: readonly ToolCallPart[]): Promise<ToolResult[]> {
  const { key, toolset } = spawn;
  const log = run.log;
  const signal = run.controller.signal;
  const results: ToolResult[] = [];
  let unjournaled: JournalEntry[] = [];
  for (const [index, call] of calls.entries()) {
    const journaled = log.tools.get(`${key}/${turn}/${index}`);
    if (journaled !== undefined) {
      results.push(journaled.result);
      continue;
    }
    const approvalKey = `${spawn.shortKey}-${key.slice(key.lastIndexOf('-') + 1)}-${turn}-${index}`;
    let approval = log.approvals.get(approvalKey);
    if (approval === undefined) {
      run.events.emit('tool:start', { runId: run.runId, agentKey: key, callId: call.id, toolName: call.name, input: call.input });
      const outcome = await dispatchTool(toolset, call, { permissions: spawn.permissions, signal });
      if (outcome.status === 'done') {
        const result = jsonResult(outcome.result);
        results.push(result);
        unjournaled.push(entry({ type: 'tool', agent: key, turn, index, result, audit: outcome.audit }));
        run.events.emit('tool:end', { runId: run.runId, agentKey: key, callId: call.id, toolName: call.name, input: outcome.input, result, audit: outcome.audit });
        continue;
      }
      let input: unknown;
      try {
        input = jsonClone(outcome.input);
      } catch {
        // Only a host's hook can make an input JSON cannot hold; the call is refused, not the run.
        const result = { callId: call.id, toolName: call.name, isError: true, output: `the input of ${call.name}, as a permission hook rewrote it, is not JSON`, reason: 'invalid_input' as const };
        results.push(result);
        unjournaled.push(entry({ type: 'tool', agent: key, turn, index, result, audit: outcome.audit }));
        run.events.emit('tool:end', { runId: run.runId, agentKey: key, callId: call.id, toolName: call.name, input: outcome.input, result, audit: outcome.audit });
        continue;
      }
      approval = askEntry(approvalKey, key, turn, index, call, input, outcome.audit, spawn);
      // The checkpoint: this turn's results so far and the ask, in one append.
      await log.write(...unjournaled, approval);
      unjournaled = [];
      run.events.emit('approval:pending', { key: approvalKey, runId: run.runId, toolName: call.name, input: approval.input, audit: approval.audit, ...(approval.deadlineAt === undefined ? {} : { deadlineAt: approval.deadlineAt }) });
    }
    const resolution = log.resolutions.get(approvalKey) ?? (await run.park(approval));
    const result = jsonResult(await settleApproval(toolset, call, approval, resolution, signal));
    results.push(result);
    unjournaled.push(entry({ type: 'tool', agent: key, turn, index, result, audit: approval.audit }));
    run.events.emit('tool:end', { runId: run.runId, agentKey: key, callId: call.id, toolName: call.name, input: approval.input, result, audit: approval.audit, resolution });
  }
  if (unjournaled.length > 0) await log.write(...unjournaled);
  return results;
}

function jsonOrFail(response: ModelResponse, spawn: Spawn): ModelResponse {
  try {
    return jsonClone(response);
  } catch (error) {
    throw modelFailed(spawn.adapter.id, spawn.model, error);
  }
}

function settleApproval(toolset: Spawn['toolset'], call: ToolCallPart, approval: Approval, resolution: Resolution, signal: AbortSignal): Promise<ToolResult> {
  if (resolution.decision === 'allow') return runApprovedCall(toolset, call, approval.input, signal);
  const why = resolution.reason ?? `${resolution.by === 'timeout' ? 'the approval timed out' : 'the approval was denied'}`;
  return Promise.resolve({ callId: call.id, toolName: call.name, isError: true, output: `permission denied: ${why}`, reason: 'denied' });
}

function askEntry(key: string, agent: string, turn: number, index: number, call: ToolCallPart, input: unknown, audit: Approval['audit'], spawn: Spawn): Approval {
  const { approvalDeadlineMs, approvalTimeoutDecision } = spawn.permissions;
  return entry({
    type: 'approval',
    key,
    agent,
    turn,
    index,
    toolName: call.name,
    callId: call.id,
    input,
    audit,
    ...(approvalDeadlineMs === undefined ? {} : { deadlineAt: new Date(Date.now() + approvalDeadlineMs).toISOString(), timeoutDecision: approvalTimeoutDecision ?? 'deny' }),
  });
}
