/**
 * Runs a server fixture over more than one transport: in-process (a linked pair) and
 * streamable-http (the web-standard endpoint behind `http.fetch`). A fixture is a factory,
 * because the HTTP endpoint builds one server per MCP session.
 */
import type { McpToolSource } from '../../src/core/index.js';
import { createMcpEndpoint, type ServesMcp } from '../fixtures/http-server.js';
import type { SuiteHarness } from './harness.js';

export interface Flavour {
  readonly name: 'inprocess' | 'streamable-http';
  open(makeServer: () => ServesMcp, options?: Record<string, unknown>): McpToolSource;
}

export function flavours(h: SuiteHarness): readonly Flavour[] {
  const { mcp } = h.lib;
  return [
    {
      name: 'inprocess',
      open: (makeServer, options = {}) => mcp({ transport: 'inprocess', server: makeServer(), ...options }),
    },
    {
      name: 'streamable-http',
      open: (makeServer, options = {}) =>
        mcp({
          transport: 'streamable-http',
          url: 'https://hostile.test/mcp',
          http: { fetch: createMcpEndpoint(makeServer).fetch },
          ...options,
        }),
    },
  ];
}
