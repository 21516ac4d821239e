/**
 * What the Worker is given: its bindings (wrangler.toml at the repository root, plus the one
 * secret) and the small parts of the Workers platform it touches. The parts are spelled out
 * here instead of coming from @cloudflare/workers-types, so the example type-checks with the
 * repository's own settings and shows exactly which platform APIs it relies on.
 */
import { ConfigError, type DurableObjectStorageLike } from '@rulvar/core';

export interface Env {
  /** One Durable Object per run (`RunObject`), addressed by the run id. */
  readonly RUNS: DurableObjectNamespaceLike;
  /** The remote MCP server's streamable-http endpoint. */
  readonly MCP_URL: string;
  /** The secret (`wrangler secret put MCP_TOKEN`), sent as `Authorization: Bearer …`. */
  readonly MCP_TOKEN?: string;
  /** How long an approval waits before it is denied, in milliseconds; 24 h when unset. */
  readonly APPROVAL_DEADLINE_MS?: string;
  /** `'adapterId:model'` (`anthropic:…`, `openai:…`); unset runs the scripted demo model (see model.ts). */
  readonly MODEL?: string;
  /** The model provider's API root instead of its own (a gateway, a proxy); optional. */
  readonly MODEL_BASE_URL?: string;
  /** Secrets (`wrangler secret put …`), read only by the adapter MODEL names. */
  readonly ANTHROPIC_API_KEY?: string;
  readonly OPENAI_API_KEY?: string;
}

export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** The `state` (or `ctx`) a Durable Object's constructor receives. */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike & {
    put(key: string, value: unknown): Promise<void>;
    delete(key: string): Promise<boolean>;
    setAlarm(scheduledTime: number): Promise<void>;
    deleteAlarm(): Promise<void>;
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The approval deadline from `APPROVAL_DEADLINE_MS`. A value that is not a positive whole
 * number is refused rather than read as "no deadline": an approval that can wait for ever
 * keeps its run open for ever, and that should be a choice, not a typo.
 */
export function approvalDeadlineMs(env: Env): number {
  const raw = env.APPROVAL_DEADLINE_MS;
  if (raw === undefined || raw.trim() === '') return DAY_MS;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new ConfigError('config.invalid_value', `APPROVAL_DEADLINE_MS must be a positive whole number of milliseconds, got ${JSON.stringify(raw)}`);
  }
  return ms;
}
