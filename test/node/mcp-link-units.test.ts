/**
 * Unit tests for src/core/mcp/modern/link.ts, what the 2026-07-28 revision changes around the
 * SDK's transports, with a transport and a fetch of the test's own: the `_meta` envelope on
 * requests only while the link is on; cancellation by abort over HTTP; the headers of each
 * POST (version, method, name, x-mcp-header arguments); GET and DELETE answered 405 unsent; a
 * 4xx JSON-RPC error read as the request's answer; session ids dropped; the end of a listen
 * stream reported once however it ends; OAuth metadata checked elsewhere.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/core/mcp/config-types.js';
import { ModernLink } from '../../src/core/mcp/modern/link.js';
import { MetadataIssuerMismatch } from '../../src/core/mcp/modern/oauth-rules.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: '@rulvar/core', version: expect.any(String) as unknown },
};
const ENDPOINT = new URL('https://mcp.example/mcp');

function transport() {
  const sent: JSONRPCMessage[] = [];
  const seen: string[] = [];
  const wire = {
    send: (message: JSONRPCMessage) => (sent.push(message), Promise.resolve()),
    onmessage: (message: JSONRPCMessage) => seen.push(JSON.stringify(message)),
    onclose: () => seen.push('closed'),
  } as unknown as Transport;
  return { wire, sent, seen };
}

/** A fetch answering `answer()`, recording what it was sent. */
function recording(answer: () => Response = () => Response.json({ jsonrpc: '2.0', id: 1, result: {} })) {
  const sent: { url: string; init: RequestInit | undefined }[] = [];
  const fetch: FetchLike = (input, init) => (sent.push({ url: String(input), init }), Promise.resolve(answer()));
  return { fetch, sent };
}

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('the envelope and cancellation (attach)', () => {
  it('off, every message goes as it is', async () => {
    const { wire, sent } = transport();
    new ModernLink(true).attach(wire);
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as JSONRPCMessage;
    await wire.send(request);
    expect(sent).toEqual([request]);
  });

  it("on, a request's params carry the envelope beside its own _meta, which it wins over; notifications and answers do not", async () => {
    const { wire, sent } = transport();
    const link = new ModernLink(false);
    link.attach(wire);
    link.on = true;
    await wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { key: 'k', 'io.modelcontextprotocol/protocolVersion': 'old' } } } as JSONRPCMessage);
    await wire.send({ jsonrpc: '2.0', id: 2, method: 'ping' } as JSONRPCMessage);
    await wire.send({ jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: 'odd' } } as unknown as JSONRPCMessage);
    await wire.send({ jsonrpc: '2.0', method: 'notifications/progress', params: {} } as JSONRPCMessage);
    await wire.send({ jsonrpc: '2.0', id: 9, result: {} } as JSONRPCMessage);
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { key: 'k', ...ENVELOPE } } },
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: ENVELOPE } },
      { jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: ENVELOPE } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
      { jsonrpc: '2.0', id: 9, result: {} },
    ]);
  });

  it('remembers the id of the last subscriptions/listen sent', async () => {
    const { wire } = transport();
    const link = new ModernLink(true);
    link.attach(wire);
    link.on = true;
    await wire.send({ jsonrpc: '2.0', id: 'L1', method: 'subscriptions/listen', params: {} } as JSONRPCMessage);
    await wire.send({ jsonrpc: '2.0', id: 'other', method: 'tools/list', params: {} } as JSONRPCMessage);
    expect(link.lastListenId).toBe('L1');
  });

  it('over HTTP a cancel aborts the exchange and is never sent; on stdio it is sent as before', async () => {
    const http = transport();
    const link = new ModernLink(true);
    link.attach(http.wire);
    link.on = true;
    const { fetch, sent } = recording();
    await link.fetch(fetch, ENDPOINT)(ENDPOINT.href, post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x' } }));
    link.observe(http.wire);
    await http.wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } } as JSONRPCMessage);
    expect(http.sent).toEqual([]);
    expect(sent[0]!.init?.signal?.aborted).toBe(true);
    const stdio = transport();
    const local = new ModernLink(false);
    local.attach(stdio.wire);
    local.on = true;
    await stdio.wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } } as JSONRPCMessage);
    expect(stdio.sent).toHaveLength(1);
  });
});

describe('requests in flight (observe, abort)', () => {
  it('an answer ends its request: a later cancel aborts nothing; a close forgets them all and is passed on', async () => {
    const { wire, seen } = transport();
    const link = new ModernLink(true);
    link.on = true;
    const { fetch, sent } = recording();
    const send = link.fetch(fetch, ENDPOINT);
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    link.observe(wire);
    wire.onmessage!({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage);
    wire.onmessage!({ jsonrpc: '2.0', id: 2, method: 'ping' } as JSONRPCMessage); // the server's own request, not an answer
    link.abort(1);
    expect(sent[0]!.init?.signal?.aborted).toBe(false);
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    wire.onclose!();
    link.abort(3);
    expect(sent[2]!.init?.signal?.aborted).toBe(false);
    link.abort(2);
    expect(sent[1]!.init?.signal?.aborted).toBe(false);
    expect(seen).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}', '{"jsonrpc":"2.0","id":2,"method":"ping"}', 'closed']);
    const still = new ModernLink(true);
    still.on = true;
    const pending = recording();
    await still.fetch(pending.fetch, ENDPOINT)(ENDPOINT.href, post({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    still.observe(wire);
    wire.onmessage!({ jsonrpc: '2.0', id: 2, method: 'roots/list' } as JSONRPCMessage);
    still.abort(2);
    expect(pending.sent[0]!.init?.signal?.aborted).toBe(true);
    link.abort(undefined);
  });
});

describe('the HTTP fetch', () => {
  it('off, requests to the endpoint go as they are', async () => {
    const { fetch, sent } = recording();
    const init = post({ jsonrpc: '2.0', id: 1, method: 'initialize' });
    await new ModernLink(true).fetch(fetch, ENDPOINT)(ENDPOINT.href, init);
    expect(sent).toEqual([{ url: ENDPOINT.href, init }]);
  });

  it('on, each POST carries the version and method; a call its name and its x-mcp-header arguments', async () => {
    const link = new ModernLink(true);
    link.on = true;
    link.plans.set('route', [{ path: ['region'], name: 'Region' }]);
    const { fetch, sent } = recording();
    const send = link.fetch(fetch, ENDPOINT);
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'route', arguments: { region: 'eu' } } }));
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'caf\u00e9', arguments: { region: 'eu' } } }));
    await send(ENDPOINT.href, post({ jsonrpc: '2.0', method: 'notifications/initialized', params: { name: 'not a call' } }));
    await send(ENDPOINT.href, post([{ jsonrpc: '2.0', id: 3, method: 'ping' }]));
    const headers = sent.map(({ init }) => Object.fromEntries(new Headers(init?.headers)));
    expect(headers).toEqual([
      { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'route', 'mcp-param-region': 'eu' },
      { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '=?base64?Y2Fmw6k=?=' },
      { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/initialized' },
      { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' },
    ]);
    expect(sent[2]!.init?.signal).toBeNull();
  });

  it("the caller's signal still aborts a request the link also watches", async () => {
    const link = new ModernLink(true);
    link.on = true;
    const { fetch, sent } = recording();
    const caller = new AbortController();
    await link.fetch(fetch, ENDPOINT)(ENDPOINT.href, { ...post({ jsonrpc: '2.0', id: 'a', method: 'ping' }), signal: caller.signal });
    caller.abort();
    expect(sent[0]!.init?.signal?.aborted).toBe(true);
  });

  it('GET and DELETE are answered 405 and never sent; a body that is no JSON goes as it is', async () => {
    const link = new ModernLink(true);
    link.on = true;
    const { fetch, sent } = recording();
    const send = link.fetch(fetch, ENDPOINT);
    expect([(await send(ENDPOINT.href, { method: 'GET' })).status, (await send(ENDPOINT.href, { method: 'DELETE' })).status, (await send(ENDPOINT.href)).status]).toEqual([405, 405, 405]);
    expect(sent).toEqual([]);
    const garbled = { method: 'POST', body: '{not json' };
    await send(ENDPOINT.href, garbled);
    expect(sent).toEqual([{ url: ENDPOINT.href, init: garbled }]);
  });

  it('elsewhere, authorization server metadata naming another issuer is refused, in either era', async () => {
    const { fetch } = recording(() => Response.json({ issuer: 'https://evil.example' }));
    const metadata = 'https://auth.example/.well-known/oauth-authorization-server';
    await expect(new ModernLink(true).fetch(fetch, ENDPOINT)(metadata)).rejects.toBeInstanceOf(MetadataIssuerMismatch);
    const on = new ModernLink(true);
    on.on = true;
    expect((await on.fetch(fetch, ENDPOINT)('https://mcp.example/other', { method: 'GET' })).status).toBe(200);
  });
});

describe('answers', () => {
  const answered = async (response: Response, body: unknown = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } }) => {
    const link = new ModernLink(true);
    link.on = true;
    return link.fetch(() => Promise.resolve(response), ENDPOINT)(ENDPOINT.href, post(body));
  };
  const rpcError = (status: number) => Response.json({ jsonrpc: '2.0', id: null, error: { code: -32020, message: 'header mismatch' } }, { status });

  it.each([400, 404, 422, 499])('a %i carrying a JSON-RPC error is that request’s answer, under its id', async (status) => {
    const response = await answered(rpcError(status));
    expect([response.status, await response.json()]).toEqual([200, { jsonrpc: '2.0', id: 7, error: { code: -32020, message: 'header mismatch' } }]);
  });

  it.each([401, 403, 429, 500, 399])('a %i is left as it came', async (status) => {
    const response = await answered(rpcError(status));
    expect(response.status).toBe(status);
  });

  it.each([
    ['no JSON', 'bad request'],
    ['another JSON-RPC version', JSON.stringify({ jsonrpc: '1.0', error: { code: 1, message: 'm' } })],
    ['an error without an integer code', JSON.stringify({ jsonrpc: '2.0', error: { code: 1.5, message: 'm' } })],
    ['an error without a message', JSON.stringify({ jsonrpc: '2.0', error: { code: 1 } })],
    ['an error that is a string', JSON.stringify({ jsonrpc: '2.0', error: 'm' })],
  ])('a 400 with %s stays a 400, its body and status text kept', async (_name, body) => {
    const response = await answered(new Response(body, { status: 400, statusText: 'Bad' }));
    expect([response.status, response.statusText, await response.text()]).toEqual([400, 'Bad', body]);
  });

  it('a session id a server hands out is dropped; a notification’s answer is left as it came', async () => {
    const withSession = () => new Response('{}', { headers: { 'mcp-session-id': 's-1', 'x-other': 'kept' }, statusText: 'Fine' });
    const response = await answered(withSession());
    expect([response.headers.get('mcp-session-id'), response.headers.get('x-other'), response.statusText]).toEqual([null, 'kept', 'Fine']);
    const notification = await answered(withSession(), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.headers.get('mcp-session-id')).toBe('s-1');
  });

  it.each([
    ['ends', (c: ReadableStreamDefaultController<Uint8Array>) => c.close(), false],
    ['fails', (c: ReadableStreamDefaultController<Uint8Array>) => c.error(new Error('dropped')), false],
    ['is cancelled', () => undefined, true],
  ])('a listen stream that %s is reported once, by its id', async (_name, finish, cancel) => {
    const ended: unknown[] = [];
    let control!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => { control = c; c.enqueue(new TextEncoder().encode('data: {}\n\n')); } });
    const link = new ModernLink(true);
    link.on = true;
    link.onListenEnd = (id) => ended.push(id);
    const response = await link.fetch(() => Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } })), ENDPOINT)(ENDPOINT.href, post({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen' }));
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {}\n\n');
    expect(ended).toEqual([]);
    if (cancel) await reader.cancel();
    else {
      finish(control);
      await reader.read().catch(() => undefined);
    }
    await reader.cancel().catch(() => undefined);
    expect(ended).toEqual(['L']);
  });
});
