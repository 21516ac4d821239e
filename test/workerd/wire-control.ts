/**
 * Node-side half of the workerd project's `loopback` wire. A Worker cannot host the servers
 * itself: workerd ties I/O objects to the request that created them, so an MCP session
 * built while handling one request cannot answer the next. So the Worker asks this small
 * control server (over plain HTTP, at the URL it gets as the WIRE_CONTROL binding) to build
 * a named scenario on Node's loopback wire, then reaches that endpoint with its own fetch
 * over a real socket and reads the endpoint's log back from here.
 *
 *   POST /serve           { scenario, params } → { id, url }
 *   GET  /log?id=…        the endpoint's WireLog
 *   POST /forget?id=…     forgets its sessions
 *   POST /close?id=…      stops serving it
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { WireEndpoint } from '../core/wire.js';
import type { ScenarioName, ScenarioParams } from '../fixtures/wire-scenarios.js';
import { keepIdleConnections, loopbackWire, startLoopbackHost } from '../node/loopback-wire.js';

export interface WireControl {
  readonly url: string;
  close(): Promise<void>;
}

export async function startWireControl(): Promise<WireControl> {
  const host = await startLoopbackHost();
  const wire = loopbackWire(host);
  const endpoints = new Map<string, WireEndpoint>();
  let served = 0;

  const control = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/serve') {
      const { scenario, params } = (await request.json()) as { scenario: ScenarioName; params?: ScenarioParams };
      const endpoint = await wire.serve(scenario, params);
      const id = String((served += 1));
      endpoints.set(id, endpoint);
      return Response.json({ id, url: endpoint.url });
    }
    const id = url.searchParams.get('id') ?? '';
    const endpoint = endpoints.get(id);
    if (endpoint === undefined) return new Response(`no endpoint ${id}`, { status: 404 });
    if (request.method === 'GET' && url.pathname === '/log') return Response.json(await endpoint.log());
    if (request.method === 'POST' && url.pathname === '/forget') await endpoint.forget();
    else if (request.method === 'POST' && url.pathname === '/close') {
      endpoints.delete(id);
      await endpoint.close();
    } else return new Response('not found', { status: 404 });
    return new Response(null, { status: 204 });
  };

  const server = await new Promise<ServerType>((resolve) => {
    const listening: ServerType = serve({ hostname: '127.0.0.1', port: 0, fetch: control }, () => resolve(listening));
  });
  keepIdleConnections(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await Promise.all([...endpoints.values()].map((endpoint) => endpoint.close()));
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.close();
    },
  };
}
