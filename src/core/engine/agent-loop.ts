/**
 * The agent loop: a model turn, its tool calls (turn-calls.ts), their results as one `tool`
 * message, the next turn. It doubles as replay: a turn already in the journal is taken from
 * there instead of being requested, so a resumed agent pays for nothing twice and continues
 * from its last checkpoint. A response without tool calls ends the agent with its text.
 */
import { RulvarError } from '../errors.js';
import type { LiveRun } from './live-run.js';
import type { Message, ModelRequest } from '../model/types.js';
import { CallSignals, callModel, type DeltaListener } from './model-call.js';
import { endedAgentResult } from './ended-agent.js';
import { entry, turnEntry } from './entries.js';
import type { Spawn } from './spawn.js';
import { journaledResults, runTurnCalls } from './turn-calls.js';
import { traceTurn } from './tracing.js';
import type { AgentResult, RetryPolicy } from './types.js';

export async function runAgent(run: LiveRun, spawn: Spawn, retry: RetryPolicy | undefined): Promise<AgentResult> {
  const { key, toolset, agentType } = spawn;
  const log = run.log;
  if (!log.spawns.has(key)) {
    const identity = { ...(agentType === undefined ? {} : { agentType }), model: spawn.modelRef, toolsetHash: toolset.toolsetHash };
    await log.write(entry({ type: 'spawn', agent: key, ...identity, prompt: spawn.prompt, authorityHash: toolset.authorityHash }));
    run.events.emit('agent:start', { runId: run.runId, agentKey: key, ...identity });
  }
  const ended = log.agentEnds.get(key);
  const whole = ended === undefined ? undefined : endedAgentResult(ended, log.agent(key), spawn.prompt, toolset.toolsetHash);
  if (whole !== undefined) return whole;
  const signals = new CallSignals(run.controller.signal);
  try {
    return await turns(run, spawn, retry, signals);
  } finally {
    signals.close();
  }
}

/** The agent's turns, from its first one not journaled (or replayed) to its end. */
async function turns(run: LiveRun, spawn: Spawn, retry: RetryPolicy | undefined, signals: CallSignals): Promise<AgentResult> {
  const { key, toolset } = spawn;
  const log = run.log;
  // Messages are frozen like the journaled values they hold: a request's messages and the
  // history an agent returns are read-only, live and replayed alike.
  const history: Message[] = [Object.freeze({ role: 'user', text: spawn.prompt })];
  const tools = toolset.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const journaled = log.agent(key);
  for (let turn = 0; ; turn += 1) {
    let response = journaled.turns[turn]?.response;
    if (response === undefined) {
      const request: ModelRequest = spawn.system === undefined ? { model: spawn.model, messages: history.slice(), tools } : { model: spawn.model, system: spawn.system, messages: history.slice(), tools };
      const leased = run.beforeEffect();
      if (leased !== undefined) await leased;
      const onDelta = spawn.adapter.stream === undefined ? undefined : deltaEmitter(run, key, turn);
      response = await traceTurn(spawn, turn, request, () => callModel(spawn.adapter, request, signals, retry ?? {}, spawn.modelCallMs, onDelta));
      // Journaled before any of its tool calls is dispatched: a crash from here on never pays for this turn again.
      // A last turn (no tool calls) goes with the agent's end, in one append: one sync less
      // per agent, and nothing can happen between the two that the end would have to follow.
      const last = response.toolCalls.length === 0 && !log.agentEnds.has(key);
      const ended = last ? [entry({ type: 'agent:end', agent: key, text: response.text, turns: turn + 1 })] : [];
      const writing = log.write(turnEntry(key, turn, response), ...ended);
      if (writing !== undefined) await writing;
      if (run.events.wants('turn:end')) {
        run.events.emit('turn:end', { runId: run.runId, agentKey: key, turn, ...(response.usage === undefined ? {} : { usage: response.usage }) });
      }
    }
    history.push(Object.freeze({ role: 'assistant', text: response.text, toolCalls: response.toolCalls }));
    if (response.toolCalls.length === 0) {
      if (!log.agentEnds.has(key)) await log.write(entry({ type: 'agent:end', agent: key, text: response.text, turns: turn + 1 }));
      return { text: response.text, toolsetHash: toolset.toolsetHash, turns: turn + 1, history };
    }
    if (turn + 1 >= spawn.maxTurns) {
      // Its tools do not run: their results would reach no model.
      throw new RulvarError('agent.max_turns', `the agent used its ${spawn.maxTurns} model turns and still asked for tools`);
    }
    const done = journaled.tools[turn];
    const results = journaledResults(response.toolCalls, done) ?? (await runTurnCalls(run, spawn, turn, response.toolCalls, done));
    Object.freeze(results);
    history.push(Object.freeze({ role: 'tool', results }));
  }
}

/** A live turn's deltas as `turn:delta` events, built only while someone listens. */
function deltaEmitter(run: LiveRun, agentKey: string, turn: number): DeltaListener {
  return (delta, attempt) => {
    if (run.events.wants('turn:delta')) run.events.emit('turn:delta', { runId: run.runId, agentKey, turn, attempt, delta });
  };
}
