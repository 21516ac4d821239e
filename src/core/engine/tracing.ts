/**
 * The engine's spans (`createEngine({ tracer })`): one per run (`invoke_workflow`), per agent
 * (`invoke_agent`), per model turn requested (`chat`, a client span) and per tool call run or
 * approved (`execute_tool`), parented run → agent → turn and call. A run that settles ends
 * every span still open with it, so a suspension shows on the run's span and on the parked
 * agent's and call's (a `rulvar.suspended` event); a resume's run span links to the span the
 * run started under, whose ids the run:start entry keeps. Inputs and outputs are recorded only
 * with `traceContent: true`. Without a tracer none of this runs: the engine holds no RunTrace.
 */
import type { PermissionAudit } from '../permissions/types.js';
import type { ToolResult } from '../tools/types.js';
import type { Message, ModelRequest, ModelResponse, ToolCallPart } from '../model/types.js';
import type { Resolution } from './approvals.js';
import { GEN_AI_ATTRIBUTES as G, RULVAR_ATTRIBUTES as R, RULVAR_EVENTS as E } from './trace-names.js';
import { TracedSpan, validSpanContext, type Attributes, type Clean } from './trace-span.js';
import type { EngineTracer, TraceSpanContext } from './trace-types.js';
import type { Spawn, SpawnPlan } from './spawn.js';
import type { RunOutcome } from './types.js';

const INTERNAL = 0;
const CLIENT = 2;
const noop = (): void => undefined;

/** An agent's span and the run it belongs to: what a Spawn carries while traced. */
export interface AgentTrace {
  readonly run: RunTrace;
  readonly span: TracedSpan;
}

export class RunTrace {
  private readonly open = new Set<TracedSpan>();
  private root: TracedSpan | undefined;
  private settled = false;

  constructor(
    private readonly tracer: EngineTracer,
    readonly content: boolean,
    private readonly clean: Clean,
    private readonly runId: string,
    private readonly workflow: string,
    private readonly resumed: boolean,
  ) {}

  /** Starts the run's span, once; linked to the span of the run's start when `started` (its run:start entry) kept one. */
  begin(started?: { readonly trace?: unknown }): void {
    if (this.root !== undefined) return;
    const link = validSpanContext(started?.trace);
    const attributes = { [G.OPERATION_NAME]: 'invoke_workflow', [G.WORKFLOW_NAME]: this.workflow, [R.RUN_ID]: this.runId, [R.RESUMED]: this.resumed };
    this.root = TracedSpan.start(this.tracer, `invoke_workflow ${this.workflow}`, INTERNAL, attributes, this.clean, noop, undefined, link && [{ context: link }]);
  }

  /** The run span's ids as run:start journals them (nothing when the tracer gave none). */
  journaled(): { trace?: TraceSpanContext } {
    const context = this.root?.context();
    return context === undefined ? {} : { trace: context };
  }

  /** A span under `parent` (the run's span by default); none once the run settled. */
  child(name: string, kind: number, attributes: Attributes, parent?: TracedSpan): TracedSpan | undefined {
    if (this.settled) return undefined;
    this.begin();
    const span = TracedSpan.start(this.tracer, name, kind, attributes, this.clean, (ended) => this.open.delete(ended), parent ?? this.root);
    this.open.add(span);
    return span;
  }

  /** Runs one agent under its span: `work` resolves the toolset and runs the loop. */
  async agent<T>(plan: SpawnPlan, work: (trace: AgentTrace | undefined) => Promise<T>): Promise<T> {
    const name = plan.agentType ?? 'agent';
    const attributes = { [G.OPERATION_NAME]: 'invoke_agent', [G.AGENT_NAME]: plan.agentType, [G.PROVIDER_NAME]: plan.adapter.id, [G.REQUEST_MODEL]: plan.model };
    const span = this.child(`invoke_agent ${name}`, INTERNAL, attributes);
    try {
      const value = await work(span === undefined ? undefined : { run: this, span });
      span?.end();
      return value;
    } catch (error) {
      span?.fail(error);
      span?.end();
      throw error;
    }
  }

  /** Ends every span still open with the run's outcome, then the run's own. */
  settle(outcome: RunOutcome): void {
    if (this.settled) return;
    this.begin();
    this.settled = true;
    const root = this.root as TracedSpan;
    const keys = outcome.status === 'suspended' ? { [R.APPROVAL_KEY]: outcome.approvals.map((a) => a.key) } : {};
    for (const span of [...this.open, root]) {
      if (outcome.status === 'suspended') span.event(E.SUSPENDED, keys);
      else if (outcome.status === 'failed') span.fail(outcome.error);
    }
    root.set({ [R.OUTCOME]: outcome.status });
    for (const span of [...this.open, root]) span.end();
  }
}

/** What an agent's spawn learned once its toolset resolved. */
export function identifyAgent(trace: AgentTrace, spawn: Spawn, continued: boolean): void {
  trace.span.set({ [G.AGENT_ID]: spawn.key, [R.TOOLSET_HASH]: spawn.toolset.toolsetHash, [R.RESUMED]: continued });
}

/** One model turn under the agent's span (a client span), or the call alone, with no async frame, when untraced. */
export function traceTurn(spawn: Spawn, turn: number, request: ModelRequest, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
  return spawn.trace === undefined ? call() : tracedTurn(spawn, spawn.trace, turn, request, call);
}

async function tracedTurn(spawn: Spawn, trace: AgentTrace, turn: number, request: ModelRequest, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
  const attributes = { [G.OPERATION_NAME]: 'chat', [G.PROVIDER_NAME]: spawn.adapter.id, [G.REQUEST_MODEL]: request.model, [R.TURN]: turn };
  const span = trace.run.child(`chat ${request.model}`, CLIENT, attributes, trace.span);
  if (trace.run.content) {
    span?.content(G.INPUT_MESSAGES, request.messages.map(messageOf));
    if (request.system !== undefined) span?.content(G.SYSTEM_INSTRUCTIONS, [{ type: 'text', content: request.system }]);
  }
  try {
    const response = await call();
    const { usage, stopReason } = response;
    span?.set({ [G.RESPONSE_FINISH_REASONS]: [FINISH[stopReason]], [G.USAGE_INPUT_TOKENS]: usage?.inputTokens, [G.USAGE_OUTPUT_TOKENS]: usage?.outputTokens });
    if (trace.run.content) span?.content(G.OUTPUT_MESSAGES, [{ role: 'assistant', parts: partsOf(response.text, response.toolCalls), finish_reason: FINISH[stopReason] }]);
    span?.end();
    return response;
  } catch (error) {
    span?.fail(error);
    span?.end();
    throw error;
  }
}

/** The GenAI conventions' finish reasons for ours. */
const FINISH: Record<ModelResponse['stopReason'], string> = { end: 'stop', tool_calls: 'tool_call', max_tokens: 'length', refused: 'content_filter' };

/** A tool call's span under the agent's, from its dispatch (or its journaled ask) to its result. */
export function toolSpan(spawn: Spawn, call: ToolCallPart): TracedSpan | undefined {
  const trace = spawn.trace;
  if (trace === undefined) return undefined;
  const attributes = { [G.OPERATION_NAME]: 'execute_tool', [G.TOOL_NAME]: call.name, [G.TOOL_CALL_ID]: call.id, [G.TOOL_TYPE]: 'function' };
  const span = trace.run.child(`execute_tool ${call.name}`, INTERNAL, attributes, trace.span);
  if (trace.run.content) span?.content(G.TOOL_CALL_ARGUMENTS, call.input ?? null);
  return span;
}

/** The call waits for an approval (`resumed`: it was asked before this process). */
export function toolAsked(span: TracedSpan | undefined, key: string, resumed: boolean): void {
  span?.set({ [R.APPROVAL_KEY]: key, [R.RESUMED]: resumed || undefined });
  if (!resumed) span?.event(E.APPROVAL_PENDING, { [R.APPROVAL_KEY]: key });
}

export function toolResolved(span: TracedSpan | undefined, resolution: Resolution): void {
  span?.event(E.APPROVAL_RESOLVED, { [R.DECISION]: resolution.decision, [R.RESOLVED_BY]: resolution.by });
}

/** The call's result ends its span: the verdict and deciding layer, an error result as an error. */
export function toolDone(span: TracedSpan | undefined, result: ToolResult, audit: PermissionAudit, content: boolean): void {
  if (span === undefined) return;
  span.set({ [R.VERDICT]: audit.verdict, [R.LAYER]: audit.layer });
  if (content) span.content(G.TOOL_CALL_RESULT, result.output ?? null);
  if (result.isError) span.fail(content ? result.output : 'the tool call ended in an error result', result.reason ?? 'tool_error');
  span.end();
}

function messageOf(message: Message): unknown {
  if (message.role === 'user') return { role: 'user', parts: [{ type: 'text', content: message.text }] };
  if (message.role === 'assistant') return { role: 'assistant', parts: partsOf(message.text, message.toolCalls) };
  return { role: 'tool', parts: message.results.map((r) => ({ type: 'tool_call_response', id: r.callId, response: r.output })) };
}

function partsOf(text: string, calls: readonly ToolCallPart[]): unknown[] {
  const parts: unknown[] = text === '' ? [] : [{ type: 'text', content: text }];
  for (const call of calls) parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.input });
  return parts;
}
