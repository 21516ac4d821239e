/**
 * Runs a server fixture over more than one transport: in-process (a linked pair) and
 * streamable-http (the web-standard endpoint behind `http.fetch`), and streamable-http on a
 * real loopback socket wherever the runtime can serve a factory built here (Node; not
 * workerd, whose isolate cannot serve its own later requests). A fixture is a factory,
 * because the HTTP endpoint builds one server per MCP session.
 */
import type { McpToolSource } from '../../src/core/index.js';
import type { ServesMcp } from '../fixtures/http-server.js';
import type { SuiteHarness } from './harness.js';
import { wiresOf } from './wire.js';

export interface Flavour {
  readonly name: 'inprocess' | 'streamable-http' | 'streamable-http over loopback TCP';
  open(makeServer: () => ServesMcp, options?: Record<string, unknown>): McpToolSource;
}

export function flavours(h: SuiteHarness): readonly Flavour[] {
  const { mcp } = h.lib;
  const overHttp = wiresOf(h).flatMap((wire): Flavour[] => {
    const { local } = wire;
    if (local === undefined) return [];
    return [
      {
        name: wire.socket ? 'streamable-http over loopback TCP' : 'streamable-http',
        open: (makeServer, options = {}) => {
          const { url, http } = local(makeServer);
          return mcp({ transport: 'streamable-http', url, http, ...options });
        },
      },
    ];
  });
  // On the 2026-07-28 wire a fixture sits behind a modern front (harness.ts), served in process.
  const serve = (makeServer: () => ServesMcp) => (h.modern === undefined ? makeServer() : h.modern.bridge(makeServer));
  return [{ name: 'inprocess', open: (makeServer, options = {}) => mcp({ transport: 'inprocess', server: serve(makeServer), ...options }) }, ...overHttp];
}
