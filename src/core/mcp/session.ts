/**
 * One MCP session: a connected client, its transport, and the tool list cached for exactly
 * this session. Concurrent cold snapshots share one in-flight sweep. A `tools/list_changed`
 * notification drops the cache and detaches any sweep in flight, so a list fetched across
 * the change is handed to the callers who asked before it but never pinned as the cache.
 *
 * On the 2026-07-28 wire (modern/) there is no session on the server's side; this object is
 * then the connection and what the client knows: the list is fresh for its pages' `ttlMs`,
 * changes come on a `subscriptions/listen` stream, and a list fetched again after it went
 * stale that differs from the last one is drift like a notification is.
 */
import { isRecord } from '../records.js';
import { ListToolsResultSchema, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { LenientCallToolResultSchema, type LenientCallToolResult } from './call-result-schema.js';
import { describeCause } from '../errors.js';
import { IDEMPOTENCY_META_KEY } from '../tools/idempotency.js';
import type { McpConfig } from './config-types.js';
import { callBounds } from './bounds.js';
import type { CallProgress } from './progress-watch.js';
import { sweepTools } from './sweep.js';
import type { Redactor } from '../secrets/redactor.js';
import { openTransport, type McpPlatform, type OpenedTransport } from './transports.js';
import { ServerErrorResponse, WireClient } from './wire-client.js';
import { callTool as callModern } from './modern/calls.js';
import { EraRetry, openEra } from './modern/era.js';
import { ModernLink } from './modern/link.js';
import { sweepModern } from './modern/list.js';
import { ToolListener } from './modern/listen.js';
import { HEADER_MISMATCH, LEGACY, type Era } from './modern/revision.js';

export interface SessionEvents {
  /** The server said its tool list changed. */
  onListChanged(): void;
}

/** What opening a session takes, besides the signal that tears it down. */
export interface SessionOpening {
  readonly config: McpConfig;
  readonly platform: McpPlatform;
  readonly sourceId: string;
  readonly events: SessionEvents;
  readonly redactor: Redactor;
  /** The revision an earlier session of this source spoke, when one did. */
  readonly hint?: Era | undefined;
}

/** A failed connect: `message` says why in words, `cause` keeps the original for sorting. */
export class ConnectFailure extends Error {
  override readonly name = 'ConnectFailure';
  constructor(message: string, override readonly cause: unknown) {
    super(message);
  }
}

export class McpSession {
  private cache: readonly Tool[] | undefined;
  /** When the cached list goes stale (modern wire: its pages' ttlMs); undefined: never. */
  private expires: number | undefined;
  /** The last list, kept after it went stale so that a changed refetch is seen as drift. */
  private stale: readonly Tool[] | undefined;
  private listener: ToolListener | undefined;
  /** Which revision the connection speaks, once open. */
  era: Era = 'legacy';
  private inflight: Promise<readonly Tool[]> | undefined;
  private listVersion = 0;
  private lost = false;
  private shutdownPromise: Promise<void> | undefined;
  /** The transport's latest complaint (an exit code, a framing overflow): the why of a loss. */
  private transportError: Error | undefined;
  /** Why this library ended the session itself; outranks whatever the transport says after. */
  private lossReason: Error | undefined;

  private constructor(
    private readonly client: WireClient,
    private readonly opened: OpenedTransport,
    private readonly sourceId: string,
    private readonly config: McpConfig,
    private readonly events: SessionEvents,
    private readonly link: ModernLink | undefined,
  ) {}

  /**
   * Connects and runs the handshake; on failure everything it started is released. Aborting
   * `signal` (close() does) tears the half-open connection down at once rather than waiting
   * out a slow handshake.
   */
  static async open(opening: SessionOpening, signal: AbortSignal): Promise<McpSession> {
    try {
      return await McpSession.openOnce(opening, signal);
    } catch (error) {
      // A server that exits on the `auto` probe is a legacy server: start it again for initialize.
      if (!(error instanceof ConnectFailure && error.cause instanceof EraRetry)) throw error;
      return McpSession.openOnce({ ...opening, hint: error.cause.era }, signal);
    }
  }

  private static async openOnce(opening: SessionOpening, signal: AbortSignal): Promise<McpSession> {
    const { config, platform, sourceId, events, redactor, hint } = opening;
    const client = new WireClient();
    const protocol = config.protocol ?? LEGACY;
    const http = config.transport === 'streamable-http' || (config.transport === 'inprocess' && !('connect' in config.server));
    // '2025-11-25' gets no link at all: its wire is what it always was.
    const link = protocol === LEGACY ? undefined : new ModernLink(http);
    const opened = await openTransport(config, platform, signal, redactor, link);
    link?.attach(opened.transport);
    const session = new McpSession(client, opened, sourceId, config, events, link);
    const abort = () => void session.shutdown();
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    client.onerror = (error) => {
      session.transportError = error;
      session.reported?.();
    };
    opened.onOverflow?.((error) => {
      // A cut body cannot be resumed into anything valid: end the session, so pending
      // requests fail now (saying why) instead of at their timeout.
      session.lossReason = error;
      session.markLost();
    });
    client.onclose = () => session.markLost();
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
      // On the modern wire a change counts only on the subscription this session opened.
      if (link?.on === true && session.listener?.carriesId(notification.params) !== true) return;
      session.invalidate();
      events.onListChanged();
    });
    try {
      // Each handshake step is bounded: by connectMs when set (connect.ts also races the
      // whole handshake against it), else by the SDK's default request timeout.
      const outcome = await openEra(client, opened.transport, link, { protocol, hint, http, timeoutMs: config.timeouts?.connectMs });
      session.era = outcome.era;
      if (outcome.era === 'modern' && outcome.listChanged && link !== undefined) {
        session.listener = new ToolListener(client, link, () => session.expire());
      }
      signal.removeEventListener('abort', abort);
    } catch (error) {
      signal.removeEventListener('abort', abort);
      // A write to a server process that is exiting fails (EPIPE) a moment before its exit is
      // reported (Node 22 was seen doing so): give that report a moment to say why.
      if (session.transportError === undefined && isBrokenPipe(error)) await session.nextReport(EXIT_REPORT_GRACE_MS);
      await session.shutdown();
      // "Connection closed" alone does not say why; the transport usually knew (an exit code).
      throw new ConnectFailure(session.explain(error), error);
    }
    return session;
  }

  /** Called when the transport reports an error (see nextReport). */
  private reported: (() => void) | undefined;

  /** Resolves on the transport's next report, or after `ms`. */
  private nextReport(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.reported = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.reported = done;
    });
  }

  /** Describes a failed request, adding what the transport last reported when there is one. */
  explain(error: unknown): string {
    const what = describeCause(error);
    const why = (this.lossReason ?? this.transportError)?.message;
    return why === undefined || what.includes(why) ? what : `${what} (${describeCause(why)})`;
  }

  /** The 2026-07-28 HTTP wire: there is no session a refused request could have lost. */
  get stateless(): boolean {
    return this.link?.on === true && this.link.http;
  }

  /** False once the connection closed under us or a request proved it gone. */
  get usable(): boolean {
    return !this.lost;
  }

  /**
   * The wire tool list: cached (until its ttlMs on the modern wire), shared while in flight, or
   * swept now. `startedAt` is when the caller began waiting (before a connect, say):
   * discoveryMs counts from then.
   */
  listTools(startedAt?: number): Promise<readonly Tool[]> {
    if (this.cache !== undefined && !(Date.now() >= (this.expires ?? Infinity))) return Promise.resolve(this.cache);
    if (this.inflight !== undefined) return this.inflight;
    if (this.cache !== undefined) this.expire();
    const version = this.listVersion;
    const { timeouts } = this.config;
    const limits = { maxTools: this.config.maxTools, maxPages: this.config.maxPages, listMs: timeouts?.listMs, discoveryMs: timeouts?.discoveryMs, startedAt };
    const store = (swept: readonly Tool[], expires?: number) => {
      let tools = swept;
      // A list fetched again after it went stale: the same list when nothing changed (so its
      // imported tools are reused), and drift like a notification when something did.
      if (expires !== undefined && this.stale !== undefined) {
        if (JSON.stringify(this.stale) === JSON.stringify(swept)) tools = this.stale;
        else if (this.config.drift === 'refuse') this.events.onListChanged();
      }
      if (this.listVersion === version && !this.lost) {
        this.cache = tools;
        this.expires = expires;
      }
      return tools;
    };
    const link = this.link;
    const sweep =
      link?.on === true
        ? sweepModern(this.client, link, this.listener, this.config, this.sourceId, limits).then(({ tools, expires }) => store(tools, expires))
        : sweepTools(
            (cursor, timeout) =>
              this.client.call({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema, timeout === undefined ? {} : { timeout }),
            this.sourceId,
            limits,
          ).then((tools) => store(tools));
    const shared = sweep.finally(() => {
      if (this.inflight === shared) this.inflight = undefined;
    });
    this.inflight = shared;
    return shared;
  }

  /**
   * `spentMs`: what of the call's bounds went on a reconnect first. Every call carries a
   * progressToken; `report` hears the progress that moves forward (progress-watch.ts).
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    idempotencyKey?: string,
    spentMs?: number,
    report?: CallProgress['onProgress'],
  ): Promise<LenientCallToolResult> {
    const params = idempotencyKey === undefined ? { name, arguments: args } : { name, arguments: args, _meta: { [IDEMPOTENCY_META_KEY]: idempotencyKey } };
    const { timeout, idleMs } = callBounds(this.config.timeouts, spentMs);
    const progress: CallProgress = { onProgress: report, idleMs, spentMs };
    if (this.link?.on === true) {
      return callModern(this.client, params, timeout, signal, progress).catch((error: unknown) => {
        // The server's headers disagree with the body: its tool definition may have changed.
        if (error instanceof ServerErrorResponse && error.code === HEADER_MISMATCH) this.expire();
        throw error;
      });
    }
    // The signal goes to `call`, never into the SDK's options: see WireClient.call.
    return this.client.call({ method: 'tools/call', params }, LenientCallToolResultSchema, timeout === undefined ? undefined : { timeout }, signal, progress);
  }

  /** Marks the connection gone (a request failed at the transport) and releases it. */
  markLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.cache = undefined;
    void this.shutdown();
  }

  /** Closes client and transport once, however many callers ask. */
  shutdown(): Promise<void> {
    this.lost = true;
    this.shutdownPromise ??= (async () => {
      await this.opened.shutdown().catch(() => undefined);
      await this.client.close().catch(() => undefined);
    })();
    return this.shutdownPromise;
  }

  private invalidate(): void {
    this.listVersion += 1;
    this.cache = undefined;
    this.stale = undefined;
    this.inflight = undefined;
  }

  /** The list must be fetched again, though no change was announced: kept to compare with. */
  private expire(): void {
    const last = this.cache ?? this.stale;
    this.invalidate();
    this.stale = last;
  }
}

/** How long a failed handshake waits for the transport to say why a broken pipe broke. */
const EXIT_REPORT_GRACE_MS = 250;

/** A write to a pipe whose reader is gone. */
function isBrokenPipe(error: unknown): boolean {
  const code = isRecord(error) ? error['code'] : undefined;
  return code === 'EPIPE' || code === 'ECONNRESET' || (error instanceof Error && /\bEPIPE\b/.test(error.message));
}
