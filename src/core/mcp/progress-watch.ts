/**
 * The `progressToken` of each `tools/call` and the `notifications/progress` that answer to it
 * (docs/mcp.md, "Progress"). The SDK's own progress handling is not used: it reports a
 * notification for a token it does not know to `onerror` with the whole notification quoted
 * (which would become the session's "why" of a later loss), parses every one with zod, and
 * its `resetTimeoutOnProgress` restarts a full `timeout` even a moment before
 * `maxTotalTimeout`, so a call could run nearly twice past its bound.
 *
 * Here a notification is read with property checks only; one whose token is unknown (never
 * sent, or its call already settled), or whose `progress` is not a finite number greater
 * than the last one taken for that token, is dropped without a word, and restarts nothing.
 * What passes is handed to the caller as the server sent it (the bus bounds it further), and
 * restarts the call's idle window when it has one. The hard deadline is the request's own
 * timeout, which nothing restarts.
 */
import { isRecord } from '../records.js';
import { movesForward } from '../tools/progress.js';

export interface CallProgress {
  /** Each report that moves forward; `total` and `message` as the server sent them. */
  readonly onProgress?: ((progress: number, total: unknown, message: unknown) => void) | undefined;
  /** `timeouts.resetOnProgress`: the call ends when no report comes for this long. */
  readonly idleMs?: number | undefined;
  /** Already spent from the first idle window (a reconnect before the call). */
  readonly spentMs?: number | undefined;
}

interface Watch {
  last: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly progress: CallProgress;
  readonly idle: () => void;
}

export class ProgressWatches {
  /** Tokens are unique per call and unguessable across connections: a random prefix, a counter. */
  private readonly prefix = crypto.randomUUID();
  private count = 0;
  private readonly watches = new Map<string, Watch>();

  /** A fresh token watched until `stop`; `expire` ends the request when its idle window runs out. */
  start(progress: CallProgress, expire: (reason: string) => void): string {
    this.count += 1;
    const token = `${this.prefix}-${this.count}`;
    const { idleMs } = progress;
    // With no one to tell and no idle window, a report for this token has nothing to do: it is
    // dropped as one for a token never sent would be, so nothing is kept (this is most calls).
    if (idleMs === undefined && progress.onProgress === undefined) return token;
    const idle = () => expire(`the server reported no progress for ${idleMs} ms (timeouts.callMs, resetOnProgress)`);
    const watch: Watch = { last: undefined, timer: undefined, progress, idle };
    if (idleMs !== undefined) watch.timer = setTimeout(idle, Math.max(1, idleMs - (progress.spentMs ?? 0)));
    this.watches.set(token, watch);
    return token;
  }

  stop(token: string): void {
    // Looking a token up hashes all of it (a UUID and a counter): not when nothing is watched.
    if (this.watches.size === 0) return;
    clearTimeout(this.watches.get(token)?.timer);
    this.watches.delete(token);
  }

  /** A `notifications/progress` from the server. Never throws. */
  notified(params: unknown): void {
    if (!isRecord(params)) return;
    // Tokens this client sends are strings; a lookup of anything else finds nothing.
    const watch = this.watches.get(params['progressToken'] as string);
    if (watch === undefined) return;
    const progress = params['progress'];
    if (!movesForward(progress, watch.last)) return;
    watch.last = progress;
    if (watch.timer !== undefined) {
      clearTimeout(watch.timer);
      watch.timer = setTimeout(watch.idle, watch.progress.idleMs);
    }
    try {
      watch.progress.onProgress?.(progress, params['total'], params['message']);
    } catch {
      // The caller's listener failing is the caller's; the call carries on.
    }
  }
}

/**
 * `request` with `token` in its params' `_meta`, beside what is there (an idempotency key).
 * No key is added to an object after a spread filled it (`{ ...a, key }` with `key` not in
 * `a`): V8 (Node 20) takes a slow path for that, about 1 µs a copy on every call. `_meta`
 * gets its slot before the spread and is overwritten in place, which is the fast path.
 */
export function withProgressToken<R extends { readonly method: string; readonly params?: object | undefined }>(request: R, token: string): R {
  const params = request.params as Record<string, unknown> | undefined;
  const meta = params !== undefined && isRecord(params['_meta']) ? params['_meta'] : undefined;
  const _meta: Record<string, unknown> = meta === undefined ? { progressToken: token } : { progressToken: token, ...meta };
  _meta['progressToken'] = token;
  const copy: Record<string, unknown> = { _meta: undefined, ...params };
  copy['_meta'] = _meta;
  return { ...request, params: copy };
}
