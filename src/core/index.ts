/**
 * The runtime-neutral core. Not an entry point of its own: the node and edge entries
 * re-export all of it and add `mcp`, built with their platform's capabilities.
 */
export { RulvarError, ConfigError, SourceError, type RulvarErrorCode, type RulvarErrorOptions } from './errors.js';
export type {
  ToolRisk,
  JsonValue,
  JsonSchema,
  ToolContext,
  ToolDef,
  ToolSource,
  ToolSourceSession,
  McpToolSource,
  ToolErrorReason,
  ToolResult,
  ContentPart,
  ReportProgress,
  ToolProgress,
} from './tools/types.js';
export { MAX_PROGRESS_MESSAGE } from './tools/progress.js';
export { PROGRESS_INTERVAL_MS } from './bus/progress-gate.js';
export { TOOL_RISKS } from './tools/types.js';
export { toolError, isToolError, toToolResult, type ToolError } from './tools/tool-error.js';
export { TOOL_NAME_PATTERN, isValidToolName } from './tools/names.js';
export type {
  McpConfig,
  McpCommonConfig,
  StdioMcpConfig,
  StreamableHttpMcpConfig,
  InprocessMcpConfig,
  InprocessServer,
  SkippedTool,
  HttpOptions,
  HeaderHook,
  HeaderRecord,
  FetchLike,
  McpTransportName,
} from './mcp/config-types.js';
export type { Mcp } from './mcp/source.js';
export type { McpBounds, McpTimeouts } from './mcp/bounds.js';
export { tool, type NativeToolSpec } from './bus/tool.js';
export type { SchemaSpec, StandardJsonSchemaCarrier, ZodLike } from './schema/schema-spec.js';
export { resolveToolset, type ResolvedToolset, type ResolveOptions, type ToolsOption } from './bus/resolve.js';
export { dispatchTool, type ApprovedCallOptions, type DispatchOutcome, type DispatchOptions, type ToolCall } from './bus/dispatch.js';
export { MAX_RESULT_BYTES } from './bus/result-cap.js';
export { MAX_SCHEMA_DEPTH, MAX_INSTANCE_DEPTH } from './schema/limits.js';
export { canonicalJson } from './tools/canonical-json.js';
export { toolsetHash, authorityHash, type ToolContract, type ToolAuthority } from './bus/toolset-hash.js';
export {
  attestToolset,
  checkToolsetAttestation,
  ToolsetAttestationError,
  ATTESTATION_FORMAT,
  type ToolsetAttestation,
  type AttestedTool,
  type AttestableToolset,
  type ChangedTool,
} from './bus/attestation.js';
export type {
  Verdict,
  RiskClass,
  PermissionPreset,
  PermissionRule,
  DomainRule,
  ToolCallInfo,
  PermissionDecision,
  PermissionHook,
  CanUseTool,
  PermissionConfig,
  PermissionLayer,
  PermissionAudit,
  PermissionEvaluation,
} from './permissions/types.js';
export { compilePermissionPreset, PERMISSION_PRESETS } from './permissions/presets.js';
export { mergePermissionConfigs } from './permissions/merge.js';
export { validatePermissionConfig } from './permissions/validate.js';
export { evaluatePermission } from './permissions/chain.js';
export { secretRedactor } from './secrets/redactor.js';
// The engine's surface (models, journals, createEngine, workflows, traces) is @rulvar/core/engine's.
export * from './engine/index.js';
export { runApprovedCall } from './bus/dispatch.js';
export { IDEMPOTENCY_META_KEY } from './tools/idempotency.js';
