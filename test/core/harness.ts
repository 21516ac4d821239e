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
}
