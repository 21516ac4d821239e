/**
 * The names the engine's spans carry: the OpenTelemetry GenAI semantic conventions' (span names
 * `invoke_workflow {workflow}`, `invoke_agent {agent}`, `chat {model}`, `execute_tool {tool}`)
 * and the library's own under `rulvar.`. Exported from `@rulvar/core/otel` for queries and
 * processors; the conventions are still "Development" upstream, so they are pinned here.
 */

/** GenAI semantic-convention attribute names the engine sets (and `error.type`). */
export const GEN_AI_ATTRIBUTES = Object.freeze({
  OPERATION_NAME: 'gen_ai.operation.name',
  PROVIDER_NAME: 'gen_ai.provider.name',
  REQUEST_MODEL: 'gen_ai.request.model',
  USAGE_INPUT_TOKENS: 'gen_ai.usage.input_tokens',
  USAGE_OUTPUT_TOKENS: 'gen_ai.usage.output_tokens',
  RESPONSE_FINISH_REASONS: 'gen_ai.response.finish_reasons',
  WORKFLOW_NAME: 'gen_ai.workflow.name',
  AGENT_NAME: 'gen_ai.agent.name',
  AGENT_ID: 'gen_ai.agent.id',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  TOOL_TYPE: 'gen_ai.tool.type',
  /** Opt-in content (`traceContent: true`), as JSON text. */
  INPUT_MESSAGES: 'gen_ai.input.messages',
  OUTPUT_MESSAGES: 'gen_ai.output.messages',
  SYSTEM_INSTRUCTIONS: 'gen_ai.system_instructions',
  TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
  ERROR_TYPE: 'error.type',
} as const);

/** The library's own attribute names. */
export const RULVAR_ATTRIBUTES = Object.freeze({
  RUN_ID: 'rulvar.run_id',
  /** `completed`, `suspended` or `failed`, on the run's span. */
  OUTCOME: 'rulvar.outcome',
  /** True on a resume's run span, on an agent continued from the journal, on a call approved before this process. */
  RESUMED: 'rulvar.resumed',
  TOOLSET_HASH: 'rulvar.toolset_hash',
  TURN: 'rulvar.turn',
  /** The permission verdict of a tool call (`allow`, `deny`, `ask`) and the layer that decided it. */
  VERDICT: 'rulvar.verdict',
  LAYER: 'rulvar.layer',
  /** An approval's key; on a suspension event, the keys of the open approvals (at most 100). */
  APPROVAL_KEY: 'rulvar.approval_key',
  DECISION: 'rulvar.decision',
  RESOLVED_BY: 'rulvar.resolved_by',
} as const);

/** The events the engine adds to its spans. */
export const RULVAR_EVENTS = Object.freeze({
  /** The run settled `suspended`: on the run's span and on every span still open (a parked agent, its call). */
  SUSPENDED: 'rulvar.suspended',
  APPROVAL_PENDING: 'rulvar.approval.pending',
  APPROVAL_RESOLVED: 'rulvar.approval.resolved',
} as const);

/** The longest an identifier, a name or an error message is in a span (characters); longer ones are cut. */
export const MAX_TRACE_TEXT_CHARS = 1_024;
/** The longest a recorded input or output is (characters of its JSON); longer ones are cut. */
export const MAX_TRACE_CONTENT_CHARS = 32_768;
