/**
 * One MCP session: a connected client, its transport, and the tool list cached for exactly
 * this session. Concurrent cold snapshots share one in-flight sweep. A `tools/list_changed`
 * notification drops the cache and detaches any sweep in flight, so a list fetched across
 * the change is handed to the callers who asked before it but never pinned as the cache.
 */
import { ListToolsResultSchema, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { LenientCallToolResultSchema, type LenientCallToolResult } from './call-result-schema.js';
import { describeCause } from '../errors.js';
import { IDEMPOTENCY_META_KEY } from '../tools/idempotency.js';
import type { McpConfig } from './config-types.js';
import { sweepTools } from './sweep.js';
import type { Redactor } from './redact.js';
import { openTransport, type McpPlatform, type OpenedTransport } from './transports.js';
import { WireClient } from './wire-client.js';

export interface SessionEvents {
  /** The server said its tool list changed. */
  onListChanged(): void;
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
  ) {}

  /**
   * Connects and runs the handshake; on failure everything it started is released. Aborting
   * `signal` (close() does) tears the half-open connection down at once rather than waiting
   * out a slow handshake.
   */
  static async open(
    config: McpConfig,
    platform: McpPlatform,
    sourceId: string,
    events: SessionEvents,
    signal: AbortSignal,
    redactor: Redactor,
  ): Promise<McpSession> {
    const client = new WireClient();
    const opened = await openTransport(config, platform, signal, redactor);
    const session = new McpSession(client, opened, sourceId, config);
    const abort = () => void session.shutdown();
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) abort();
    client.onerror = (error) => (session.transportError = error);
    opened.onOverflow?.((error) => {
      // A cut body cannot be resumed into anything valid: end the session, so pending
      // requests fail now (saying why) instead of at their timeout.
      session.lossReason = error;
      session.markLost();
    });
    client.onclose = () => session.markLost();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      session.invalidate();
      events.onListChanged();
    });
    try {
      // Each handshake step is bounded: by connectMs when set (connect.ts also races the
      // whole handshake against it), else by the SDK's default request timeout.
      await client.open(opened.transport, config.timeouts?.connectMs);
      signal.removeEventListener('abort', abort);
    } catch (error) {
      signal.removeEventListener('abort', abort);
      await session.shutdown();
      // "Connection closed" alone does not say why; the transport usually knew (an exit code).
      throw new ConnectFailure(session.explain(error), error);
    }
    return session;
  }

  /** Describes a failed request, adding what the transport last reported when there is one. */
  explain(error: unknown): string {
    const what = describeCause(error);
    const why = (this.lossReason ?? this.transportError)?.message;
    return why === undefined || what.includes(why) ? what : `${what} (${describeCause(why)})`;
  }

  /** False once the connection closed under us or a request proved it gone. */
  get usable(): boolean {
    return !this.lost;
  }

  /** The wire tool list: cached, shared while in flight, or swept now. */
  listTools(): Promise<readonly Tool[]> {
    if (this.cache !== undefined) return Promise.resolve(this.cache);
    if (this.inflight !== undefined) return this.inflight;
    const version = this.listVersion;
    const sweep = sweepTools(
      (cursor, timeout) =>
        this.client.call(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
          timeout === undefined ? {} : { timeout },
        ),
      this.sourceId,
      {
        maxTools: this.config.maxTools,
        maxPages: this.config.maxPages,
        listMs: this.config.timeouts?.listMs,
        discoveryMs: this.config.timeouts?.discoveryMs,
      },
    ).then((tools) => {
      if (this.listVersion === version && !this.lost) this.cache = tools;
      return tools;
    });
    const shared = sweep.finally(() => {
      if (this.inflight === shared) this.inflight = undefined;
    });
    this.inflight = shared;
    return shared;
  }

  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal | undefined, idempotencyKey?: string): Promise<LenientCallToolResult> {
    const timeout = this.config.timeouts?.callMs;
    const params = idempotencyKey === undefined ? { name, arguments: args } : { name, arguments: args, _meta: { [IDEMPOTENCY_META_KEY]: idempotencyKey } };
    // The signal goes to `call`, never into the SDK's options: see WireClient.call.
    return this.client.call({ method: 'tools/call', params }, LenientCallToolResultSchema, timeout === undefined ? undefined : { timeout }, signal);
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
    this.inflight = undefined;
  }
}
