/**
 * A minimal MCP client on the SDK's Protocol base. It exists instead of the SDK `Client`
 * because that class imports Ajv (code generation, refused in workerd) at module load,
 * caches output validators only for the last listed page, and throws McpError for output
 * problems. This importer owns listing, validation and notifications itself, so all it needs
 * from a client is the handshake and `request`.
 *
 * It also remembers where each failure came from. The SDK turns a server's JSON-RPC error
 * and its own local failures (the transport closed: -32000; its request timer: -32001) into
 * the same McpError class with overlapping codes, so by the time a request rejects, a server
 * answering -32000 for an application error looks exactly like a dead connection. Here every
 * error response is noted as it arrives, and `call` rejects with a ServerErrorResponse for
 * those: whatever the code, it is the server talking, and the connection is fine.
 */
import { DEFAULT_REQUEST_TIMEOUT_MSEC, Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientNotification,
  type ClientRequest,
  type ClientResult,
} from '@modelcontextprotocol/sdk/types.js';
import { withDeadline } from '../async.js';
import { answerDefect, answeredId, markedDefect } from './answer-shape.js';
import { ProgressWatches, withProgressToken, type CallProgress } from './progress-watch.js';

export const CLIENT_INFO = Object.freeze({ name: '@rulvar/core', version: '0.1.0' });

/** The server answered the handshake with a protocol revision this client does not speak. */
export class UnsupportedProtocolError extends Error {
  override readonly name = 'UnsupportedProtocolError';
}

/** A JSON-RPC error the server sent in answer to one request. */
export class ServerErrorResponse extends Error {
  override readonly name = 'ServerErrorResponse';
  constructor(
    readonly code: number,
    message: string,
    /** The error's `data`, as the server sent it (a -32022 names the versions it supports there). */
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The server answered a request with what is not a JSON-RPC response (answer-shape.ts). */
export class MalformedAnswer extends Error {
  override readonly name = 'MalformedAnswer';
}

/** A handshake step that was sent but never acknowledged within its bound. */
export class HandshakeTimeout extends Error {
  override readonly name = 'HandshakeTimeout';
}

interface Outgoing {
  id?: string | number;
  error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** A response (result or error) to it arrived: too late to abandon it. */
  answered?: boolean;
  /** Its caller gave up on it (see `abandon`). */
  abandoned?: boolean;
  /** What was wrong with the answer that settled it, when the SDK would have dropped that answer. */
  defect?: string;
}

export class WireClient extends Protocol<ClientRequest, ClientNotification, ClientResult> {
  /** Requests in flight by JSON-RPC id, so an arriving error response can be attributed. */
  private readonly outgoing = new Map<string | number, Outgoing>();
  /** Set only while `super.request` runs: it sends synchronously, which is when the id is known. */
  private sending: Outgoing | undefined;
  /** The progress tokens of requests in flight (progress-watch.ts). */
  private readonly progress = new ProgressWatches();

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    // Plain property checks, not the SDK's is* guards: those run a zod parse per message,
    // which builds an error object for every message that is not of their kind.
    transport.send = (message, options) => {
      if (this.sending !== undefined && 'method' in message && 'id' in message) {
        this.sending.id = message.id;
        this.outgoing.set(message.id, this.sending);
        this.sending = undefined;
      }
      return send(message, options);
    };
    // Protocol.connect calls the handler found here before its own, so the note is taken
    // before the SDK settles the request.
    transport.onmessage = (message) => {
      const id = answeredId(message);
      if (id === undefined) return;
      // The SDK settles a response by Number(id) (a string "1" finds request 1): look it up
      // the same way, or the two would disagree on who answered.
      const entry = this.outgoing.get(Number(id));
      if (entry === undefined || entry.abandoned === true || entry.answered === true) return;
      entry.answered = true;
      const defect = answerDefect(message as unknown as Record<string, unknown>);
      if (defect !== undefined) {
        this.settleMalformed(entry, defect);
        return;
      }
      if (!('error' in message)) return;
      // answerDefect passed it: an integer code and a string message.
      const error = message.error as { code: number; message: string; data?: unknown };
      // A transport's stand-in for an answer it could not pass on (answer-shape.ts).
      const marked = markedDefect(error);
      if (marked !== undefined) entry.defect = marked;
      else entry.error = { code: error.code, message: error.message, data: error.data };
    };
    await super.connect(transport);
    // Progress is read here and never reaches the SDK (progress-watch.ts says why).
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) this.progress.notified(message.params);
      else deliver?.(message, extra);
    };
  }

  /**
   * `request`, except that a JSON-RPC error from the server rejects with ServerErrorResponse;
   * every other rejection (local timeout, closed transport, invalid result) is the SDK's own.
   *
   * `cancel` aborts the request as the SDK's `options.signal` would (it rejects at once, the
   * SDK forgets it, the server is sent notifications/cancelled), without what that costs per
   * call: the SDK needs a signal of its own per request (it never removes its listener), and
   * Node spends more making one AbortSignal than on an in-process round trip. Here the only
   * per-call cost is one listener on `cancel`, removed when the request settles.
   *
   * `progress`: the request carries a fresh `progressToken`, and the server's progress for it
   * is handed on (progress-watch.ts); with an idle window, the request is abandoned as timed
   * out when none comes for that long.
   */
  call<S extends AnySchema>(request: ClientRequest, resultSchema: S, options?: RequestOptions, cancel?: AbortSignal, progress?: CallProgress): Promise<SchemaOutput<S>> {
    if (cancel?.aborted === true) return Promise.reject(cancel.reason);
    const entry: Outgoing = {};
    const token = progress === undefined ? undefined : this.progress.start(progress, (reason) => this.abandon(entry, reason));
    this.sending = entry;
    let pending: Promise<SchemaOutput<S>>;
    try {
      pending = this.request(token === undefined ? request : withProgressToken(request, token), resultSchema, options);
    } catch (error) {
      if (token !== undefined) this.progress.stop(token);
      throw error;
    } finally {
      this.sending = undefined;
    }
    const abandon = cancel === undefined ? undefined : () => this.abandon(entry, cancel.reason);
    if (abandon !== undefined) cancel?.addEventListener('abort', abandon, { once: true });
    // Not an async function: this runs on every call, and an async frame is kept per call.
    const settle = () => {
      if (token !== undefined) this.progress.stop(token);
      if (abandon !== undefined) cancel?.removeEventListener('abort', abandon);
      if (entry.id !== undefined) this.outgoing.delete(entry.id);
    };
    return pending.then(
      (result) => {
        settle();
        return result;
      },
      (error: unknown) => {
        settle();
        if (entry.defect !== undefined) throw new MalformedAnswer(`the server answered with ${entry.defect}`);
        throw entry.error === undefined ? error : new ServerErrorResponse(entry.error.code, entry.error.message, entry.error.data);
      },
    );
  }

  /**
   * Settles a request whose answer the SDK is about to drop (answer-shape.ts) the way
   * `abandon` settles one: an error response for its id, through the handler the SDK
   * installed. `call` then rejects with MalformedAnswer instead of waiting out its timer. The
   * SDK still reports the original message to `onerror` as one it does not know.
   */
  private settleMalformed(entry: Outgoing, defect: string): void {
    entry.defect = defect;
    if (entry.id === undefined) return;
    this.transport?.onmessage?.({ jsonrpc: '2.0', id: entry.id, error: { code: ErrorCode.InvalidRequest, message: defect } });
  }

  /**
   * Gives up on a request still waiting for its answer. The SDK has no public way to cancel
   * one without the signal it was made with, so it is handed what settles any request: a
   * response for its id, through the transport's message handler the SDK installed. That
   * rejects it with the McpError (-32001, the reason) the SDK's own cancel would, and drops
   * its handler and its timer; then the server is told, as the SDK would tell it.
   */
  private abandon(entry: Outgoing, reason: unknown): void {
    const requestId = entry.id;
    if (requestId === undefined || entry.answered === true || entry.abandoned === true) return;
    entry.abandoned = true;
    const message = String(reason);
    // The server is told first: on the 2026-07-28 HTTP wire, telling it is aborting the
    // request's exchange (modern/link.ts), which must still be known when it is asked to.
    this.notification({ method: 'notifications/cancelled', params: { requestId, reason: message } }).catch((error: unknown) =>
      this.onerror?.(new Error(`Failed to send cancellation: ${String(error)}`)),
    );
    this.transport?.onmessage?.({ jsonrpc: '2.0', id: requestId, error: { code: ErrorCode.RequestTimeout, message } });
  }

  /**
   * Starts the transport and runs the initialize handshake; closes itself when that fails.
   * Every step is bounded by `timeoutMs` (the SDK's default request timeout when not given):
   * the `initialized` notification included, which over HTTP is a POST a server may never
   * answer, and which the SDK would otherwise wait on for ever.
   */
  async open(transport: Transport, timeoutMs: number = DEFAULT_REQUEST_TIMEOUT_MSEC): Promise<void> {
    await this.connect(transport);
    await this.handshake(transport, timeoutMs);
  }

  /** The initialize handshake on a connected transport, as `open` runs it. */
  async handshake(transport: Transport, timeoutMs: number = DEFAULT_REQUEST_TIMEOUT_MSEC): Promise<void> {
    try {
      const result = await this.call(
        {
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
        },
        InitializeResultSchema,
        { timeout: timeoutMs },
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new UnsupportedProtocolError(`the server answered with unsupported protocol version ${JSON.stringify(result.protocolVersion.slice(0, 40))}`);
      }
      // HTTP transports send the negotiated version as a header on every later request.
      transport.setProtocolVersion?.(result.protocolVersion);
      await withDeadline(
        this.notification({ method: 'notifications/initialized' }),
        timeoutMs,
        () => new HandshakeTimeout(`the server did not accept notifications/initialized within ${timeoutMs} ms`),
      );
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  // This client declares no capabilities and sends only initialize, tools/list, tools/call
  // and ping, so there is nothing to assert on either side.
  protected assertCapabilityForMethod(): void {}
  protected assertNotificationCapability(): void {}
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}
}
