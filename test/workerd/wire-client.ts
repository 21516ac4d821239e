/**
 * The Worker-side half of the workerd project's `loopback` wire: each endpoint is built by
 * the Node control server (wire-control.ts) on a loopback listener, and the library reaches
 * it with the Worker's own global fetch, so every exchange leaves the isolate over a real
 * socket. The control URL arrives with the /run request (the WIRE_CONTROL binding), after
 * the suite has been registered, hence a getter.
 */
import type { Wire, WireEndpoint } from '../core/wire.js';
import type { WireLog } from '../fixtures/wire-scenarios.js';

export function controlledWire(controlUrl: () => string | undefined): Wire {
  const ask = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> => {
    const base = controlUrl();
    if (base === undefined) throw new Error('no WIRE_CONTROL binding: the Node side did not start the wire control server');
    const response = await fetch(`${base}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!response.ok) throw new Error(`wire control ${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response;
  };

  return {
    socket: true,
    async serve(scenario, params = {}) {
      const { id, url } = (await (await ask('POST', '/serve', { scenario, params })).json()) as { id: string; url: string };
      // Both answer 204, with no body to drain.
      const close = async () => void (await ask('POST', `/close?id=${id}`));
      const endpoint: WireEndpoint = {
        url,
        http: {},
        log: async () => (await (await ask('GET', `/log?id=${id}`)).json()) as WireLog,
        forget: async () => void (await ask('POST', `/forget?id=${id}`)),
        close,
        [Symbol.asyncDispose]: close,
      };
      return endpoint;
    },
  };
}
