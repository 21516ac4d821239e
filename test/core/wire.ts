/**
 * How the shared suites reach a streamable-http server. Each runtime lists the wires it can
 * offer: every runtime has one in process (the handler called as `http.fetch`, no socket); Node
 * and workerd add one over loopback, a real HTTP server on 127.0.0.1 reached with the library's
 * default global fetch. A suite declares its cases once per wire.
 */
import type { Fetch } from '../fixtures/hostile-wire.js';
import type { ServesMcp } from '../fixtures/http-server.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { createScenario, type ScenarioName, type ScenarioParams, type WireLog } from '../fixtures/wire-scenarios.js';
import type { SuiteHarness } from './harness.js';
import { sleep } from './helpers.js';

/** The `http` options that reach an endpoint: `{ fetch }` in process, `{}` (global fetch) over a socket. */
export interface HttpReach {
  readonly fetch?: Fetch;
}

export interface WireEndpoint extends AsyncDisposable {
  readonly url: string;
  readonly http: HttpReach;
  log(): Promise<WireLog>;
  forget(): Promise<void>;
  close(): Promise<void>;
}

export interface Wire {
  /** True when requests cross a real TCP socket, so the server sees a peer address. */
  readonly socket: boolean;
  serve(scenario: ScenarioName, params?: ScenarioParams): Promise<WireEndpoint>;
  /**
   * Serves a server factory built by the suite itself, for `flavours`. Absent where the
   * server cannot live in the suite's process behind this wire (workerd's loopback).
   */
  readonly local?: (makeServer: () => ServesMcp) => { readonly url: string; readonly http: HttpReach };
}

/** A describe name per wire; in-process keeps the name the suites have always had. */
export const onWire = (name: string, wire: Wire): string => (wire.socket ? `${name} over loopback TCP` : name);

export function inProcessWire(): Wire {
  return {
    socket: false,
    async serve(scenario, params) {
      const endpoint = createScenario(scenario, params);
      const close = () => endpoint.forget();
      return {
        url: `https://${scenario}.test/mcp`,
        http: { fetch: (input, init) => endpoint.handle(new Request(input, init), null) },
        log: async () => endpoint.log(),
        forget: close,
        close,
        [Symbol.asyncDispose]: close,
      };
    },
    local: (makeServer) => ({ url: 'https://hostile.test/mcp', http: { fetch: createMcpEndpoint(makeServer).fetch } }),
  };
}

/** The wires a harness offers; in process alone when it names none. */
export const wiresOf = (h: SuiteHarness): readonly Wire[] => h.wires ?? [inProcessWire()];

/** Polls an endpoint's log until `check` holds; fails naming `what` after `timeoutMs`. */
export async function logged(endpoint: WireEndpoint, check: (log: WireLog) => boolean, what: string, timeoutMs = 2_000): Promise<WireLog> {
  const started = Date.now();
  for (;;) {
    const log = await endpoint.log();
    if (check(log)) return log;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Asserts every exchange came the way the wire says: from a loopback TCP peer, or with no socket at all. */
export function expectCarried(h: SuiteHarness, wire: Wire, log: WireLog): void {
  h.expect(log.exchanges.length).toBeGreaterThan(0);
  for (const { remote } of log.exchanges) {
    if (wire.socket) h.expect(remote).toMatch(/^127\.0\.0\.1:\d+$/);
    else h.expect(remote).toBeNull();
  }
}

/** The exchanges of one JSON-RPC method. */
export const calls = (log: WireLog, method: string) => log.exchanges.filter((e) => e.method === method);
