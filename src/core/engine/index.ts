/**
 * The engine's public surface alone: what `@rulvar/core/engine` exports, for a process that
 * runs or resumes workflows and never imports an MCP server. Nothing here reaches the MCP
 * client, the SDK or zod (`mcp()`, and `tool()` with its zod schemas, come from the main
 * entry), so such a process starts in a fraction of the whole entry's import time.
 */
export { RulvarError, ConfigError, SourceError, type RulvarErrorCode, type RulvarErrorOptions } from '../errors.js';
export type { ToolContext, ToolDef, ToolResult, ToolSource } from '../tools/types.js';
export type { ToolCallPart, Message, ToolSpec, ModelRequest, ModelResponse, ModelAdapter, ModelDelta, StopReason } from '../model/types.js';
export type { FileJournalOptions, JournalLease, JournalStore, LeaseRequest } from '../journal/store.js';
export type { JournalEntry, JournalEntryType, ResolvedBy } from '../journal/entries.js';
export { JOURNAL_FORMAT } from '../journal/entries.js';
export { memoryJournal } from '../journal/memory.js';
export { durableObjectJournal, type DurableObjectStorageLike, type DurableObjectTransactionLike, type DurableObjectListOptionsLike } from '../journal/durable-object.js';
export type { EngineEvents, EngineEventName, EngineListener } from './events.js';
export type {
  AgentProfile,
  AgentOptions,
  AgentResult,
  ApprovalDecision,
  Engine,
  EngineOptions,
  PendingApproval,
  ResolveOptions as ApprovalResolveOptions,
  ResumeOptions,
  RetryPolicy,
  RunHandle,
  RunOptions,
  RunOutcome,
  Workflow,
  WorkflowContext,
} from './types.js';
export type { WorkOptions } from './work.js';
export { createEngine } from './engine.js';
export type { EngineTracer, TraceAttributeValue, TraceContext, TraceSpan, TraceSpanContext, TraceSpanOptions } from './trace-types.js';
export { defineWorkflow } from './workflow.js';
