/**
 * Spawn identity: what an agent is, decided once before its first model call. Options are
 * merged (engine, then profile, then call), the model routed, the permissions merged and
 * validated, the toolset resolved and frozen, a pinned profile's attestation checked, and the
 * content key computed. Every refusal here happens before any model is called.
 */
import { checkToolsetAttestation } from '../bus/attestation.js';
import { resolveToolset, type ResolvedToolset, type ToolsOption } from '../bus/resolve.js';
import { sha256Hex } from '../bus/toolset-hash.js';
import { ConfigError } from '../errors.js';
import { mergePermissionConfigs, type MergedPermissionConfig } from '../permissions/merge.js';
import type { PermissionConfig } from '../permissions/types.js';
import { canonicalJson } from '../tools/canonical-json.js';
import { sha256HexSync } from '../tools/sha256.js';
import { routeModel } from './model.js';
import type { ModelAdapter } from '../model/types.js';
import type { ToolResult } from '../tools/types.js';
import { resultCleaner } from './tool-redaction.js';
import type { AgentOptions, AgentProfile, EngineOptions } from './types.js';
import type { AgentTrace } from './tracing.js';

export const DEFAULT_MAX_TURNS = 25;
/** Tool calls one model answer may have run; the rest get error results (issue 23: 20,000 calls in one answer). */
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 128;
/** How long one model call may take before it is abandoned as a retryable failure: ten minutes. */
export const DEFAULT_MODEL_CALL_MS = 600_000;
/** The longest wait one timer can take. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The part of a spawn known synchronously at `ctx.agent`, which orders identical spawns. */
export interface SpawnPlan {
  readonly prompt: string;
  readonly agentType: string | undefined;
  readonly modelRef: string;
  readonly system: string | undefined;
  readonly tools: ToolsOption;
  readonly profile: AgentProfile | undefined;
  /** Merged once here, so a bad config refuses the spawn before any model call. */
  readonly permissions: MergedPermissionConfig;
  /** The scopes as given (engine, profile, call), what each dispatch evaluates. */
  readonly permissionScopes: readonly PermissionConfig[];
  readonly maxTurns: number;
  readonly maxToolCallsPerTurn: number;
  readonly modelCallMs: number;
  readonly adapter: ModelAdapter;
  readonly model: string;
  /** Scrubs a tool result with every adapter's `redact` (tool-redaction.ts); none when no adapter declares one. */
  readonly cleanResult: ((result: ToolResult) => ToolResult) | undefined;
  /** Equal for spawns that can only differ by their toolset; the ordinal counts these. */
  readonly descriptor: string;
}

export interface Spawn extends SpawnPlan {
  readonly key: string;
  /** Where this agent's approval keys start: the content hash's first 16 hex digits and the ordinal. */
  readonly approvalPrefix: string;
  /**
   * Where its calls' idempotency keys start: a hash of the run id and its incarnation with the
   * same identity, so keys differ between runs (a reused run id included), stay the same
   * across restarts, and are short whatever the run id's length.
   */
  readonly idempotencyPrefix: string;
  readonly toolset: ResolvedToolset;
  /** The agent's span, when the engine traces. */
  readonly trace?: AgentTrace;
}

export function planSpawn(options: EngineOptions, adapters: ReadonlyMap<string, ModelAdapter>, prompt: string, call: AgentOptions): SpawnPlan {
  if (typeof prompt !== 'string') throw new ConfigError('config.invalid_value', 'ctx.agent needs a string prompt');
  const defaults = options.defaults ?? {};
  const agentType = call.agentType;
  let profile: AgentProfile | undefined;
  if (agentType !== undefined) {
    profile = Object.hasOwn(defaults.profiles ?? {}, agentType) ? defaults.profiles?.[agentType] : undefined;
    if (profile === undefined) {
      const known = Object.keys(defaults.profiles ?? {}).join(', ') || 'none';
      throw new ConfigError('agent.unknown_type', `no agent profile is named ${JSON.stringify(agentType)} (profiles: ${known})`);
    }
  }
  const modelRef = call.model ?? profile?.model ?? defaults.model;
  if (modelRef === undefined) {
    throw new ConfigError('config.missing_key', 'no model for this agent: set defaults.model, the profile\'s model or the call\'s');
  }
  const { adapter, model } = routeModel(modelRef, adapters);
  const maxTurns = call.maxTurns ?? profile?.maxTurns ?? defaults.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isSafeInteger(maxTurns) || maxTurns < 1) {
    throw new ConfigError('config.invalid_value', `maxTurns must be a positive integer, not ${String(maxTurns)}`);
  }
  const maxToolCallsPerTurn = profile?.maxToolCallsPerTurn ?? defaults.maxToolCallsPerTurn ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN;
  if (!Number.isSafeInteger(maxToolCallsPerTurn) || maxToolCallsPerTurn < 1) {
    throw new ConfigError('config.invalid_value', `maxToolCallsPerTurn must be a positive integer, not ${String(maxToolCallsPerTurn)}`);
  }
  const modelCallMs = profile?.modelCallMs ?? defaults.modelCallMs ?? DEFAULT_MODEL_CALL_MS;
  if (typeof modelCallMs !== 'number' || !(modelCallMs > 0 && modelCallMs <= MAX_TIMER_MS)) {
    throw new ConfigError('config.invalid_value', `modelCallMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, not ${String(modelCallMs)}`);
  }
  const permissionScopes = [defaults.permissions, profile?.permissions, call.permissions].filter((c): c is PermissionConfig => c !== undefined);
  const permissions = mergePermissionConfigs(...permissionScopes);
  const system = call.system ?? profile?.system;
  return {
    prompt,
    agentType,
    modelRef,
    system,
    tools: call.tools ?? profile?.tools ?? [],
    profile,
    permissions,
    permissionScopes,
    maxTurns,
    maxToolCallsPerTurn,
    modelCallMs,
    adapter,
    model,
    cleanResult: resultCleaner([adapter, ...[...adapters.values()].filter((other) => other !== adapter)]),
    descriptor: canonicalJson({ agentType: agentType ?? null, model: modelRef, system: system ?? null, prompt }),
  };
}

/** Resolves the toolset once (frozen from here on), checks a pin, and keys the spawn. */
export async function completeSpawn(plan: SpawnPlan, run: { runId: string; workflow: string; incarnation: string | undefined }, ordinal: number, options: EngineOptions, signal: AbortSignal): Promise<Spawn> {
  const toolset = await resolveToolset(plan.tools, { toolsets: options.defaults?.toolsets ?? {}, session: { signal } });
  const attestation = plan.profile?.toolsetAttestation;
  if (attestation !== undefined) await checkToolsetAttestation(toolset, attestation);
  const identity = {
    workflow: run.workflow,
    agentType: plan.agentType ?? null,
    model: plan.modelRef,
    system: plan.system ?? null,
    prompt: plan.prompt,
    toolsetHash: toolset.toolsetHash,
  };
  // Two digests, side by side: the content key must not depend on the run, the idempotency
  // keys must, on its incarnation too (a journal from before incarnations keeps its keys).
  const ofThisRun = { ...identity, runId: run.runId, ordinal, ...(run.incarnation === undefined ? {} : { incarnation: run.incarnation }) };
  const [hash, ofRun] = await Promise.all([keyDigest(canonicalJson(identity)), keyDigest(canonicalJson(ofThisRun))]);
  return { ...plan, toolset, key: `${hash}-${ordinal}`, approvalPrefix: `${hash.slice(0, 16)}-${ordinal}`, idempotencyPrefix: `rulvar-${ofRun.slice(0, 32)}` };
}

/** Texts at most this long are hashed in place; longer ones (a long prompt) go to WebCrypto. */
const SYNC_DIGEST_MAX_CHARS = 2048;

/**
 * A spawn's keys are digests of a few hundred bytes, and the one that includes the run id is
 * new on every run: WebCrypto would cost a thread hop each time, for the same hex.
 */
function keyDigest(text: string): string | Promise<string> {
  return text.length <= SYNC_DIGEST_MAX_CHARS ? sha256HexSync(text) : sha256Hex(text);
}
