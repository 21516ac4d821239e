/**
 * Real 2026-07-28 servers (the v2 SDK's createMcpHandler) over streamable-http, on a loopback
 * socket (Hono) and in process (the handler as `server`), in their default configuration
 * (both revisions) and modern-only (`legacy: 'reject'`), under each `protocol` setting: what
 * works, what is refused and how, what went over the wire, pagination and ttlMs caching, output
 * schemas, and list changes through subscriptions/listen under both drift policies.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchTool, mcp, resolveToolset, type McpToolSource, type ResolvedToolset } from '../../src/node/index.js';
import { modernHandler, modernNotebook, modernPaged, type LegacyServing } from '../fixtures/modern-servers.js';
import { sleep } from '../core/helpers.js';

interface Seen {
  readonly verb: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly meta: Record<string, unknown> | undefined;
}

type Fetch = (request: Request) => Promise<Response>;
const routes = new Map<string, Fetch>();
let server: ServerType;
let origin = '';
beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const listening: ServerType = serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => routes.get(new URL(request.url).pathname)?.(request) ?? new Response(null, { status: 404 }) }, () =>
      resolve(listening),
    );
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A handler behind a logging front: on a socket, or in process as `server`. */
function reach(handler: { fetch: Fetch }, socket: boolean, options: Record<string, unknown> = {}) {
  const seen: Seen[] = [];
  const front: Fetch = async (request) => {
    const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string; params?: { _meta?: Record<string, unknown> } }) : {};
    seen.push({ verb: request.method, method: body.method ?? '', headers: Object.fromEntries(request.headers), meta: body.params?._meta });
    return handler.fetch(request);
  };
  const path = `/r${routes.size}/mcp`;
  routes.set(path, front);
  const source = socket
    ? mcp({ transport: 'streamable-http', url: `${origin}${path}`, ...options })
    : mcp({ transport: 'inprocess', server: { fetch: front }, ...options });
  return { source, seen };
}

const call = async (toolset: ResolvedToolset, name: string, input: unknown) => {
  const outcome = await dispatchTool(toolset, { id: name, name, input });
  if (outcome.status !== 'done') throw new Error(`expected a result, got ${outcome.status}`);
  return outcome.result;
};

for (const socket of [true, false]) {
  const how = socket ? 'over loopback HTTP' : 'in process (a createMcpHandler handler as server)';
  for (const legacy of ['stateless', 'reject'] satisfies LegacyServing[]) {
    describe(`a v2 server (legacy: '${legacy}') ${how}`, () => {
      for (const protocol of ['2025-11-25', 'auto', '2026-07-28'] as const) {
        const refused = legacy === 'reject' && protocol === '2025-11-25';
        it(`protocol '${protocol}' ${refused ? 'is refused naming what the server offers' : 'lists, calls and validates output'}`, async () => {
          const handler = modernHandler(modernNotebook().factory, legacy);
          const { source, seen } = reach(handler, socket, { protocol });
          try {
            if (refused) {
              await expect(source.tools()).rejects.toMatchObject({ code: 'source.protocol' });
              await expect(source.tools()).rejects.toThrow(/refused initialize \(protocol 2025-11-25\): it offered "2026-07-28"; set protocol to 'auto' or '2026-07-28'/);
              return;
            }
            const toolset = await resolveToolset([source]);
            expect(toolset.tools.map((t) => t.name).sort()).toEqual(['add_note', 'list_notes']);
            expect(await call(toolset, 'add_note', { title: 't', body: 'b' })).toMatchObject({ isError: false, output: { title: 't', count: 1 } });
            const methods = seen.map((s) => `${s.verb} ${s.method}`);
            if (protocol === '2025-11-25') {
              expect(methods.slice(0, 2)).toEqual(['POST initialize', 'POST notifications/initialized']);
              expect(seen.every((s) => s.headers['mcp-method'] === undefined)).toBe(true);
              // The one _meta member of the 2025 wire: the call's own progressToken.
              expect(seen.filter((s) => s.meta !== undefined).map((s) => [s.method, Object.keys(s.meta ?? {})])).toEqual([['tools/call', ['progressToken']]]);
            } else {
              // Stateless: no initialize, no GET stream, no DELETE; every request says who and what it is.
              expect(methods).toEqual(['POST server/discover', 'POST subscriptions/listen', 'POST tools/list', 'POST tools/call']);
              for (const s of seen) {
                expect(s.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': s.method });
                expect(s.meta).toMatchObject({
                  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                  'io.modelcontextprotocol/clientCapabilities': {},
                  'io.modelcontextprotocol/clientInfo': { name: '@rulvar/core' },
                });
                expect(s.headers['mcp-session-id']).toBeUndefined();
              }
              expect(seen.find((s) => s.method === 'tools/call')?.headers['mcp-name']).toBe('add_note');
            }
            await source.close();
            expect(seen.some((s) => s.verb === 'DELETE' || (s.verb === 'GET' && protocol !== '2025-11-25'))).toBe(false);
          } finally {
            await source.close();
            await handler.close();
          }
        });
      }

      it('pages are swept to the end and served from the cache for their ttlMs, then fetched again', async () => {
        const paged = modernPaged([['a', 'b'], ['c']], 400);
        const handler = modernHandler(paged.factory, legacy);
        const { source } = reach(handler, socket, { protocol: '2026-07-28' });
        try {
          expect((await source.tools()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
          expect(paged.listCalls).toEqual([undefined, 'c1']);
          expect((await source.tools()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
          expect(paged.listCalls).toHaveLength(2);
          await sleep(600);
          paged.setPages([['a'], ['d']]);
          expect((await source.tools()).map((t) => t.name)).toEqual(['a', 'd']);
          expect(paged.listCalls).toEqual([undefined, 'c1', undefined, 'c1']);
        } finally {
          await source.close();
          await handler.close();
        }
      });

      it('a list with ttlMs 0 (the SDK default) is fetched again on every tools()', async () => {
        const paged = modernPaged([['a']]);
        const handler = modernHandler(paged.factory, legacy);
        const { source } = reach(handler, socket, { protocol: '2026-07-28' });
        try {
          await source.tools();
          await source.tools();
          expect(paged.listCalls).toHaveLength(2);
        } finally {
          await source.close();
          await handler.close();
        }
      });

      for (const drift of ['rekey', 'refuse'] as const) {
        it(`a change announced on subscriptions/listen ${drift === 'rekey' ? 're-keys the next snapshot' : "refuses the source under drift: 'refuse'"}`, async () => {
          const notebook = modernNotebook(60_000);
          const handler = modernHandler(notebook.factory, legacy);
          const { source } = reach(handler, socket, { protocol: 'auto', drift });
          try {
            expect(await source.tools()).toHaveLength(2);
            notebook.grow();
            // Fresh for a minute: the change is not seen until it is announced.
            expect(await source.tools()).toHaveLength(2);
            await handler.notify.toolsChanged();
            const seen = await eventually(source, drift);
            if (drift === 'rekey') expect(seen).toHaveLength(3);
            else expect(seen).toMatchObject({ code: 'source.drift_refused' });
          } finally {
            await source.close();
            await handler.close();
          }
        });
      }
    });
  }
}

/** What tools() gives once the change has landed (a re-keyed list, or the drift refusal). */
async function eventually(source: McpToolSource, drift: 'rekey' | 'refuse'): Promise<unknown> {
  for (let i = 0; i < 100; i += 1) {
    try {
      const tools = await source.tools();
      if (tools.length === 3) return tools;
    } catch (error) {
      if (drift === 'refuse') return error;
      throw error;
    }
    await sleep(20);
  }
  throw new Error('the change never landed');
}

describe('the source end of a modern wire', () => {
  it('a v2 McpServer instance in process speaks 2025-11-25: auto falls back after one probe', async () => {
    const notebook = modernNotebook();
    const source: McpToolSource = mcp({ transport: 'inprocess', server: notebook.factory(), protocol: 'auto' });
    try {
      expect((await source.tools()).map((t) => t.name).sort()).toEqual(['add_note', 'list_notes']);
    } finally {
      await source.close();
    }
    const strict = mcp({ transport: 'inprocess', server: notebook.factory(), protocol: '2026-07-28' });
    await expect(strict.tools()).rejects.toThrow(/did not answer server\/discover as a 2026-07-28 server .*Method not found/);
    await strict.close();
  });
});

describe('a list fetched again after it went stale', () => {
  it('is the same list when nothing changed: its imported tools are reused', async () => {
    const paged = modernPaged([['a', 'b']]);
    const handler = modernHandler(paged.factory);
    const source = mcp({ transport: 'inprocess', server: handler, protocol: '2026-07-28' });
    try {
      const first = await source.tools();
      const second = await source.tools();
      expect(paged.listCalls).toHaveLength(2);
      expect(second[0]).toBe(first[0]);
      paged.setPages([['a', 'c']]);
      const third = await source.tools();
      expect(third.map((t) => t.name)).toEqual(['a', 'c']);
      expect(third[0]).not.toBe(first[0]);
    } finally {
      await source.close();
      await handler.close();
    }
  });
});
