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
} from './tools/types.js';
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
  HttpOptions,
  HeaderHook,
  HeaderRecord,
  FetchLike,
  McpTransportName,
} from './mcp/config-types.js';
export type { Mcp } from './mcp/source.js';
