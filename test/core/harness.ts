/**
 * What a runtime gives the shared core suite: a test API (vitest's in Node and Chromium,
 * a small collector inside workerd) and the library entry built for that runtime.
 */
import type * as Edge from '../../src/edge/index.js';
import type { Wire } from './wire.js';

export interface SuiteExpect {
  (actual: unknown): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- mirrors vitest's chainable expect
}

export interface SuiteHarness {
  readonly describe: (name: string, body: () => void) => void;
  readonly it: (name: string, body: () => unknown, timeoutMs?: number) => void;
  readonly expect: SuiteExpect;
  /** The library as this runtime imports it (the edge entry, or the node entry in Node). */
  readonly lib: typeof Edge;
  /** Which runtime runs the suite, for the few facts that differ (none should, ideally). */
  readonly runtime: 'node' | 'chromium' | 'workerd';
  /**
   * How streamable-http suites reach their servers here: in process, and over loopback where
   * a socket can be served. Optional so that harnesses built elsewhere (the stdio tests, the
   * mutation run) keep compiling; without it, in process only (see `wiresOf`).
   */
  readonly wires?: readonly Wire[];
  /**
   * The hostile provider origins of test/node/provider-host.ts, reached with this runtime's
   * own fetch (read when a case runs: workerd learns them per request). Absent where no such
   * host runs; the cases that need one are then not declared.
   */
  readonly providerHost?: () => ProviderOrigins | undefined;
  /**
   * Set when the suites run on the 2026-07-28 wire (test/node/core-modern.test.ts): `lib.mcp`
   * speaks it, the wires serve modern endpoints, and `bridge` puts a 2025 fixture behind a
   * modern front (test/fixtures/modern-bridge.ts) for cases that bring their own server.
   */
  readonly modern?: { bridge(makeServer: () => { connect(transport: never): Promise<void> }): { fetch(request: Request): Promise<Response> } };
}

/** Two origins on loopback: the provider's baseURL, and where its cross-origin redirects point. */
export interface ProviderOrigins {
  readonly provider: string;
  readonly elsewhere: string;
}
