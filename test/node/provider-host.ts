/**
 * Hostile providers on real sockets, for what only a runtime's own fetch decides: whether a
 * redirect is followed and with which headers, and how much of a body crosses the wire before
 * the adapter stops. Two listeners on 127.0.0.1 are two origins: `provider` (the baseURL) and
 * `elsewhere` (where a cross-origin redirect points). Every answer allows CORS, so Chromium's
 * page reaches both as Node and workerd do. A test names its case with an id in the path:
 *
 *   POST provider/redirect/<id>/<status>/<cross|same>/…  answers <status> to <origin>/sink/<id>/…
 *   POST <either>/sink/<id>/…                           records the request, answers a 200 both adapters read
 *   POST provider/flood/<id>/…                          200, chunked, writes until the client lets go
 *   POST provider/length/<id>/…                         200 with content-length 600 MiB, then a trickle
 *   GET  provider/log/<id>                              { hits, sink: [{ origin, headers }], written, closed }
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderHostLog } from '../fixtures/provider-host-log.js';

export interface ProviderHost {
  /** The baseURL origin. */
  readonly provider: string;
  readonly elsewhere: string;
  close(): Promise<void>;
}

const FLOOD_CHUNK = Buffer.alloc(64 * 1024, 'a');
/** A flood stops here even if nobody stops reading it, so a broken adapter cannot fill memory. */
const FLOOD_LIMIT_BYTES = 256 * 1024 * 1024;
/** Both wire shapes at once: anthropic reads `content`, openaiCompatible reads `choices`. */
const FOLLOWED = JSON.stringify({
  content: [{ type: 'text', text: 'followed' }],
  stop_reason: 'end_turn',
  choices: [{ message: { role: 'assistant', content: 'followed' }, finish_reason: 'stop' }],
});
/** How long an answer held open waits for its client before the host drops it. */
const HOLD_MS = 30_000;
const FLOOD_HEAD = '{"content":[{"type":"text","text":"';

export async function startProviderHost(): Promise<ProviderHost> {
  const logs = new Map<string, ProviderHostLog>();
  const logOf = (id: string): ProviderHostLog => {
    let log = logs.get(id);
    if (log === undefined) logs.set(id, (log = { hits: 0, sink: [], written: 0, closed: false }));
    return log;
  };
  const origins = { provider: '', elsewhere: '' };
  const handle = (origin: () => string) => (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('access-control-allow-origin', '*');
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-methods': 'POST, GET',
        'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '*',
      });
      return void response.end();
    }
    const [, route = '', id = '', ...rest] = (request.url ?? '').split('/');
    const log = logOf(id);
    request.resume(); // the request body is not needed
    if (route === 'log') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
    if (route === 'sink') {
      log.sink.push({ origin: origin(), headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])) });
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(FOLLOWED);
    }
    if (origin() !== origins.provider) return void response.writeHead(404).end();
    log.hits += 1;
    response.on('close', () => (log.closed = true));
    if (route === 'redirect') {
      const [status = '307', where = 'cross', ...path] = rest;
      const target = where === 'same' ? origins.provider : origins.elsewhere;
      return void response.writeHead(Number(status), { location: `${target}/sink/${id}/${path.join('/')}` }).end();
    }
    if (route === 'length') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(600 * 1024 * 1024) });
      return void flood(response, log, 1024, false);
    }
    if (route === 'flood') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(FLOOD_HEAD);
      return void flood(response, log, FLOOD_LIMIT_BYTES, true);
    }
    response.writeHead(404).end();
  };
  const provider = await listen(handle(() => origins.provider));
  const elsewhere = await listen(handle(() => origins.elsewhere));
  origins.provider = provider.origin;
  origins.elsewhere = elsewhere.origin;
  return {
    provider: provider.origin,
    elsewhere: elsewhere.origin,
    async close() {
      await Promise.all([provider.close(), elsewhere.close()]);
    },
  };
}

/**
 * Writes 64 KiB chunks as fast as the client takes them, up to `limit` bytes or until it goes;
 * then ends, or (`end` false) holds the answer open until the client gives up on it.
 */
async function flood(response: ServerResponse, log: ProviderHostLog, limit: number, end: boolean): Promise<void> {
  while (!response.destroyed && log.written < limit) {
    const chunk = FLOOD_CHUNK.subarray(0, Math.min(FLOOD_CHUNK.length, limit - log.written));
    log.written += chunk.length;
    if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
  }
  if (response.destroyed) return;
  if (end) return void response.end();
  const timer = setTimeout(() => response.destroy(), HOLD_MS);
  response.once('close', () => clearTimeout(timer));
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  // Idle connections kept for the server's life, as loopback-wire.ts's keepIdleConnections says why.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
