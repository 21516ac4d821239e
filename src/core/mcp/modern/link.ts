/**
 * What the 2026-07-28 revision changes on the wire, applied around the SDK's own transports
 * (the JSON-RPC layer and the HTTP transport stay the SDK's, so OAuth and every guard of the
 * legacy wire keep working). Off until the modern era is chosen, and off again after an
 * `auto` fallback: the legacy wire then passes untouched.
 *
 * On every transport: each request's params carry the `_meta` envelope.
 * Over HTTP, at the fetch:
 *  - each POST to the MCP endpoint carries `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (tools/call) and the
 *    `Mcp-Param-*` headers of the tool's `x-mcp-header` plan;
 *  - a GET or DELETE to the endpoint is answered 405 here and never sent: the revision has no
 *    session stream, no session to end and no resumption (the SDK treats 405 as "no stream");
 *  - a session id a server hands out is dropped, so it is never echoed;
 *  - a 4xx carrying a JSON-RPC error is handed on as that request's answer (the SDK would only
 *    see an HTTP failure): a modern server says "unsupported version" or "header mismatch" so;
 *  - cancelling a request aborts its HTTP exchange instead of POSTing notifications/cancelled;
 *  - the end of a `subscriptions/listen` stream is reported, however it ends.
 * Elsewhere (the SDK's OAuth requests), the 2026-07-28 authorization rules (oauth-rules.ts).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../records.js';
import type { FetchLike } from '../config-types.js';
import { checkMetadataIssuer } from './oauth-rules.js';
import { headerValue, paramHeaders, type ParamHeader } from './param-headers.js';
import { ENVELOPE, MODERN } from './revision.js';

type Id = string | number;

export class ModernLink {
  on = false;
  /** `x-mcp-header` plans of the listed tools, by tool name (HTTP only). */
  readonly plans = new Map<string, readonly ParamHeader[]>();
  /** Told when the HTTP stream answering a `subscriptions/listen` request ends. */
  onListenEnd: ((id: Id) => void) | undefined;
  /** The id of the last `subscriptions/listen` request sent (it is sent synchronously). */
  lastListenId: Id | undefined;
  private readonly inflight = new Map<Id, AbortController>();

  constructor(readonly http: boolean) {}

  /** Before the wire client connects: the envelope on requests, cancellation by abort. */
  attach(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (!this.on || !('method' in message)) return send(message, options);
      if ('id' in message) {
        if (message.method === 'subscriptions/listen') this.lastListenId = message.id;
        const params = isRecord(message.params) ? message.params : {};
        const meta = isRecord(params['_meta']) ? params['_meta'] : {};
        return send({ ...message, params: { ...params, _meta: { ...meta, ...ENVELOPE } } } as JSONRPCMessage, options);
      }
      if (this.http && message.method === 'notifications/cancelled') {
        this.abort((message.params as { requestId?: Id } | undefined)?.requestId);
        return Promise.resolve();
      }
      return send(message, options);
    };
  }

  /** After the wire client connects: an answer ends its request's exchange. */
  observe(transport: Transport): void {
    const deliver = transport.onmessage;
    const close = transport.onclose;
    transport.onmessage = (message, extra) => {
      if ('id' in message && !('method' in message)) this.inflight.delete(message.id as Id);
      deliver?.(message, extra);
    };
    transport.onclose = () => {
      this.inflight.clear();
      close?.();
    };
  }

  abort(id: Id | undefined): void {
    if (id === undefined) return;
    this.inflight.get(id)?.abort();
    this.inflight.delete(id);
  }

  /** The fetch for the SDK's HTTP transport, over `inner` (the header hook's fetch). */
  fetch(inner: FetchLike, endpoint: URL): FetchLike {
    return async (input, init) => {
      const url = new URL(String(input));
      // Elsewhere (the SDK's OAuth requests): authorization server metadata is checked, in either era.
      if (url.origin !== endpoint.origin || url.pathname !== endpoint.pathname) return checkMetadataIssuer(url, await inner(input, init));
      if (!this.on) return inner(input, init);
      if (init?.method !== 'POST') return new Response(null, { status: 405 });
      let message: unknown;
      try {
        message = JSON.parse(String(init.body));
      } catch {
        return inner(input, init);
      }
      const { method, id, params } = isRecord(message) ? message : {};
      const headers = new Headers(init.headers);
      headers.set('mcp-protocol-version', MODERN);
      if (typeof method === 'string') headers.set('mcp-method', method);
      const args = isRecord(params) ? params : {};
      if (method === 'tools/call' && typeof args['name'] === 'string') {
        headers.set('mcp-name', headerValue(args['name']));
        for (const [name, value] of paramHeaders(this.plans.get(args['name']) ?? [], args['arguments'])) headers.set(name, value);
      }
      let signal = init.signal ?? undefined;
      const requestId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
      if (requestId !== undefined) {
        const controller = new AbortController();
        this.inflight.set(requestId, controller);
        signal = signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]);
      }
      const response = await inner(input, { ...init, headers, signal: signal ?? null });
      return requestId === undefined ? response : this.adapt(response, requestId, method === 'subscriptions/listen');
    };
  }

  private async adapt(response: Response, id: Id, listen: boolean): Promise<Response> {
    const { status } = response;
    if (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429) {
      const text = await response.text().catch(() => '');
      const error = errorOf(text);
      if (error !== undefined) return Response.json({ jsonrpc: '2.0', id, error });
      return new Response(text, { status, statusText: response.statusText, headers: response.headers });
    }
    if (!response.headers.has('mcp-session-id') && !listen) return response;
    const headers = new Headers(response.headers);
    headers.delete('mcp-session-id');
    const body = listen && response.body !== null ? watchEnd(response.body, () => this.onListenEnd?.(id)) : response.body;
    return new Response(body, { status, statusText: response.statusText, headers });
  }
}

/** The error of a JSON-RPC error response in `text`, if that is what it is. */
function errorOf(text: string): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = isRecord(body) && body['jsonrpc'] === '2.0' ? body['error'] : undefined;
  return isRecord(error) && Number.isSafeInteger(error['code']) && typeof error['message'] === 'string' ? error : undefined;
}

/** `body`, calling `onEnd` once when it ends, fails or is cancelled. */
function watchEnd(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (!ended) onEnd();
    ended = true;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}
