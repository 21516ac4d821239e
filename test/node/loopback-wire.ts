/**
 * The `loopback` wire in Node: one @hono/node-server listener on 127.0.0.1 that mounts each
 * endpoint a test asks for at its own path. Clients reach it with the library's default
 * global fetch (no `http.fetch`), so every exchange crosses a real TCP socket; the handler is
 * told the peer address, which is how a test proves it. A handler that rejects is a dropped
 * connection: the socket is destroyed instead of answered. The workerd project serves its
 * endpoints from here too (see test/workerd/wire-control.ts).
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Wire } from '../core/wire.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { createScenario } from '../fixtures/wire-scenarios.js';

type Handler = (request: Request, remote: string | null) => Promise<Response>;

export interface LoopbackHost {
  /** Serves `handler` under a fresh path until `unmount()`. */
  mount(handler: Handler): { readonly url: string; unmount(): void };
  close(): Promise<void>;
}

export async function startLoopbackHost(): Promise<LoopbackHost> {
  const routes = new Map<string, Handler>();
  let mounted = 0;
  const server = await new Promise<ServerType>((resolve) => {
    const listening: ServerType = serve(
      {
        hostname: '127.0.0.1',
        port: 0,
        async fetch(request, { incoming }) {
          const handler = routes.get(new URL(request.url).pathname);
          if (handler === undefined) return new Response('no such endpoint', { status: 404 });
          const { remoteAddress, remotePort } = incoming.socket;
          try {
            return await handler(request, `${remoteAddress}:${remotePort}`);
          } catch {
            incoming.socket.destroy();
            return new Response(null, { status: 500 }); // never reaches the client
          }
        },
      },
      () => resolve(listening),
    );
  });
  keepIdleConnections(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    mount(handler) {
      const path = `/endpoint-${(mounted += 1)}/mcp`;
      routes.set(path, handler);
      return { url: `${origin}${path}`, unmount: () => void routes.delete(path) };
    },
    async close() {
      routes.clear();
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export function loopbackWire(host: LoopbackHost): Wire {
  return {
    socket: true,
    async serve(scenario, params) {
      const endpoint = createScenario(scenario, params);
      const { url, unmount } = host.mount(endpoint.handle);
      const close = async () => {
        unmount();
        await endpoint.forget();
      };
      return {
        url,
        http: {},
        log: async () => endpoint.log(),
        forget: () => endpoint.forget(),
        close,
        [Symbol.asyncDispose]: close,
      };
    },
    local(makeServer) {
      const endpoint = createMcpEndpoint(makeServer);
      return { url: host.mount((request) => endpoint.handle(request)).url, http: {} };
    },
  };
}

/**
 * Node closes an idle keep-alive connection after 5 s, and a client (workerd's fetch, undici)
 * that reuses it at that moment gets "Network connection lost". On a loaded machine a case can
 * idle that long between two requests (seen in the gate), so idle connections are kept for the
 * server's life; its close() ends them.
 */
export function keepIdleConnections(server: ServerType): void {
  if ('keepAliveTimeout' in server) server.keepAliveTimeout = 0;
}
