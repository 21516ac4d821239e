/**
 * The Worker that test/workerd/core.test.ts bundles with esbuild and runs under plain
 * Miniflare (no nodejs_compat, codegen disallowed). It registers the shared core suite into
 * an in-worker collector and serves:
 *   GET /cases    each case's describe path, so the Node side declares one vitest test per case
 *   POST /run     runs every case in order, returns CaseResult[]
 *   GET /codegen  tries `new Function`, proving this isolate really refuses code generation
 *
 * `lib` is imported from src/edge here; the bundler swaps it for dist/edge/index.js when the
 * run asks for the built package (RULVAR_TEST_DIST=1, which `npm test` sets).
 */
import * as lib from '../../src/edge/index.js';
import { coreSuite } from '../core/suite.js';
import { inProcessWire } from '../core/wire.js';
import type { ProviderOrigins } from '../core/harness.js';
import { createExpect } from './expect.js';
import { createCollector } from './harness.js';
import { controlledWire } from './wire-client.js';

/** The testTimeout of vitest.config.ts, so a case gets the same budget in every runtime. */
const CASE_TIMEOUT_MS = 20_000;

/** Where the Node side's wire control server listens (the WIRE_CONTROL binding), once a request brings it. */
let wireControl: string | undefined;
/** The provider host's origins (the PROVIDER_HOST binding, JSON), once a request brings them. */
let providerHost: ProviderOrigins | undefined;

const collector = createCollector(CASE_TIMEOUT_MS);
coreSuite({
  describe: collector.describe,
  it: collector.it,
  expect: createExpect(),
  lib,
  runtime: 'workerd',
  wires: [inProcessWire(), controlledWire(() => wireControl)],
  providerHost: () => providerHost,
});

/** What GET /codegen reports; `refused` is true when the isolate threw EvalError. */
export interface CodegenProbe {
  readonly refused: boolean;
  readonly errorName?: string;
  readonly message: string;
}

function probeCodegen(): CodegenProbe {
  try {
    // Deliberate: this endpoint exists to show that workerd refuses code generation.
    // eslint-disable-next-line no-new-func
    const generated = new Function('return 1') as () => number;
    return { refused: false, message: `new Function ran and returned ${generated()}` };
  } catch (error) {
    const err = error instanceof Error ? error : new Error(String(error));
    return { refused: err.name === 'EvalError', errorName: err.name, message: err.message };
  }
}

export default {
  async fetch(request: Request, env: { WIRE_CONTROL?: string; PROVIDER_HOST?: string }): Promise<Response> {
    wireControl = env.WIRE_CONTROL;
    providerHost = env.PROVIDER_HOST === undefined ? undefined : (JSON.parse(env.PROVIDER_HOST) as ProviderOrigins);
    const { pathname } = new URL(request.url);
    if (request.method === 'GET' && pathname === '/cases') return Response.json(collector.paths());
    if (request.method === 'POST' && pathname === '/run') return Response.json(await collector.run());
    if (request.method === 'GET' && pathname === '/codegen') return Response.json(probeCodegen());
    return new Response('not found', { status: 404 });
  },
};
