/**
 * The opt-in bounds on what a server may cost the host (spec/mcp.md, "Bounds"): their
 * construction-time checks, and the `requireBounds` posture that insists on all of them.
 * Leaving a bound out keeps the unbounded behaviour, exactly as before.
 */
import { ConfigError } from '../errors.js';

export interface McpTimeouts {
  /** Races the transport handshake; expiry releases the client (and a stdio child). */
  readonly connectMs?: number;
  /** Per tools/list page. */
  readonly listMs?: number;
  /**
   * Per tools/call; expiry is the tool's error result (reason `timeout`), never a throw.
   * With `resetOnProgress`, the longest wait between two progress reports instead.
   */
  readonly callMs?: number;
  /** The whole sweep's wall clock; each page waits at most what is left of it. */
  readonly discoveryMs?: number;
  /**
   * A call's wall clock that no progress restarts. Default with `resetOnProgress`: 10 × callMs
   * (callMs defaulting to the SDK's 60 s). Without it, callMs is already the whole call's
   * bound; maxCallMs then binds only when callMs is not set. Never below callMs.
   */
  readonly maxCallMs?: number;
  /** Each progress report from the server restarts callMs, never past maxCallMs. */
  readonly resetOnProgress?: boolean;
}

export interface McpBounds {
  /** Cap on wire tools accumulated by the sweep, checked after each page, before filters. */
  readonly maxTools?: number;
  /** Cap on tools/list calls in one sweep. */
  readonly maxPages?: number;
  /** Cap per admitted tool on UTF-8 bytes of serialized inputSchema plus outputSchema. */
  readonly maxSchemaBytes?: number;
  readonly timeouts?: McpTimeouts;
  /** Refuse construction unless maxTools, maxPages, maxSchemaBytes and timeouts.discoveryMs are set. */
  readonly requireBounds?: boolean;
}

const TIMEOUT_KEYS = ['connectMs', 'listMs', 'callMs', 'discoveryMs', 'maxCallMs', 'resetOnProgress'] as const;
const MAX_TIMER_MS = 2_147_483_647;

const positiveInteger = (value: unknown): string | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? undefined : `a positive integer (got ${describe(value)})`;

/** Checks for the bound keys, merged into the common key table of config.ts. */
export const BOUND_CHECKS: Record<string, (value: unknown) => string | undefined> = {
  maxTools: positiveInteger,
  maxPages: positiveInteger,
  maxSchemaBytes: positiveInteger,
  requireBounds: (v) => (typeof v === 'boolean' ? undefined : 'true or false'),
  timeouts: checkTimeouts,
};

function checkTimeouts(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `an object with ${TIMEOUT_KEYS.join(', ')}`;
  }
  for (const [key, ms] of Object.entries(value)) {
    if (!(TIMEOUT_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(
        'config.unknown_key',
        `mcp(): 'timeouts.${key}' is not a timeout (allowed: ${TIMEOUT_KEYS.join(', ')})`,
      );
    }
    if (ms === undefined) continue;
    if (key === 'resetOnProgress') {
      if (typeof ms === 'boolean') continue;
      throw new ConfigError('config.invalid_value', `mcp(): 'timeouts.resetOnProgress' must be true or false (got ${describe(ms)})`);
    }
    // Timers take at most 2^31 - 1 ms; past that they fire at once, the opposite of intended.
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
      throw new ConfigError(
        'config.invalid_value',
        `mcp(): 'timeouts.${key}' must be a positive number of milliseconds up to ${MAX_TIMER_MS} (got ${describe(ms)})`,
      );
    }
  }
  const { callMs, maxCallMs } = value as McpTimeouts;
  if (callMs !== undefined && maxCallMs !== undefined && maxCallMs < callMs) {
    throw new ConfigError('config.invalid_value', `mcp(): 'timeouts.maxCallMs' (${maxCallMs}) must be at least 'timeouts.callMs' (${callMs})`);
  }
  return undefined;
}

/** The SDK's request timeout, which applies when a call's bound is not set. */
const SDK_DEFAULT_MS = 60_000;
/** maxCallMs when resetOnProgress is on and it is not set: this many callMs windows. */
export const MAX_CALL_WINDOWS = 10;

/**
 * The bounds of one tools/call, `spentMs` already gone on a reconnect: `timeout` is its hard
 * deadline (undefined: the SDK's default), `idleMs` the window progress restarts.
 */
export function callBounds(timeouts: McpTimeouts | undefined, spentMs = 0): { readonly timeout?: number; readonly idleMs?: number } {
  const left = (ms: number) => Math.max(1, ms - spentMs);
  if (timeouts?.resetOnProgress !== true) {
    const bound = timeouts?.callMs ?? timeouts?.maxCallMs;
    return bound === undefined ? {} : { timeout: left(bound) };
  }
  const idleMs = timeouts.callMs ?? SDK_DEFAULT_MS;
  return { timeout: left(timeouts.maxCallMs ?? Math.min(MAX_CALL_WINDOWS * idleMs, MAX_TIMER_MS)), idleMs };
}

/** `requireBounds: true` refuses, naming every missing bound at once. */
export function assertRequiredBounds(bounds: McpBounds): void {
  if (bounds.requireBounds !== true) return;
  const missing = [
    bounds.maxTools === undefined ? 'maxTools' : undefined,
    bounds.maxPages === undefined ? 'maxPages' : undefined,
    bounds.maxSchemaBytes === undefined ? 'maxSchemaBytes' : undefined,
    bounds.timeouts?.discoveryMs === undefined ? 'timeouts.discoveryMs' : undefined,
  ].filter((key) => key !== undefined);
  if (missing.length === 0) return;
  throw new ConfigError(
    'config.bounds_required',
    `mcp(): requireBounds is set, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not declared`,
  );
}

/** A short rendering of a bad bound value; bounds are numbers, never secrets. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
