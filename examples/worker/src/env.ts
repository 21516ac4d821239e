/**
 * What the Worker is given: its bindings (wrangler.toml at the repository root, plus its
 * secrets) and the small parts of the Workers platform it touches. The parts are spelled out
 * here instead of coming from @cloudflare/workers-types, so the example type-checks with the
 * repository's own settings and shows exactly which platform APIs it relies on. Every value
 * is checked by config.ts before a request is served.
 */
import type { DurableObjectStorageLike } from '@rulvar/core';

export interface Env {
  /** One Durable Object per run (`RunObject`), addressed by the run id. */
  readonly RUNS: DurableObjectNamespaceLike;
  /** Secret: the bearer token every API route requires (at least 32 characters). */
  readonly API_TOKEN?: string;
  /** Secret: the HMAC key of approval links (at least 32 characters); unset, no links. */
  readonly APPROVAL_LINK_SECRET?: string;
  /** The remote MCP server's streamable-http endpoint. */
  readonly MCP_URL?: string;
  /** Secret: sent to the remote server as `Authorization: Bearer …`; optional. */
  readonly MCP_TOKEN?: string;
  /** How long an approval waits before it is denied, in milliseconds; 24 h when unset. */
  readonly APPROVAL_DEADLINE_MS?: string;
  /** `'adapterId:model'` (`anthropic:…`, `openai:…`); unset runs the scripted demo model (see model.ts). */
  readonly MODEL?: string;
  /** The model provider's API root instead of its own (a gateway, a proxy); optional. */
  readonly MODEL_BASE_URL?: string;
  /** Secrets, read only by the adapter MODEL names. */
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
