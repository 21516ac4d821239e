/**
 * Runs the shared core suite inside workerd (plain Miniflare, codegen disallowed, no
 * nodejs_compat) and reports each worker-side case as its own vitest test, nested under the
 * same describe blocks, so the summary counts cases per runtime.
 *
 * Bundling and starting Miniflare happen at the top level because the case list has to be
 * known before tests are declared; the cases themselves run in one request in `beforeAll`
 * (see harness.ts for why one request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodegenProbe } from './worker.js';
import { fullName, type CaseResult } from './harness.js';
import { startWorker, type LibSource, type RunningWorker } from './runner.js';
import { startWireControl } from './wire-control.js';
import { startProviderHost } from '../node/provider-host.js';
// Loaded here only to put the suite and the library into this file's module graph: vitest
// prints code frames only for files in the graph, and watch mode reruns this file when
// they change. What runs in workerd is the bundle, not these Node-side copies.
import '../core/suite.js';
import '../../src/edge/index.js';

const SETUP_TIMEOUT_MS = 60_000;
// The whole suite in one request: about 80 s on an idle machine, several times that with two
// workers and the Node 22/24 lane beside it. A limit for a stuck run only; each case has its own.
const RUN_TIMEOUT_MS = 400_000;

// `npm test` builds first and asks for dist; `vitest run` alone tests the source directly.
const libSource: LibSource = process.env['RULVAR_TEST_DIST'] === '1' ? 'dist' : 'src';

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`worker answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

// The servers the loopback wire's cases talk to live here in Node (see wire-control.ts).
const wireControl = await startWireControl();
// The hostile providers the adapter cases reach with workerd's own fetch (provider-host.ts).
const providers = await startProviderHost();
const worker: RunningWorker = await withTimeout(
  startWorker(libSource, undefined, { WIRE_CONTROL: wireControl.url, PROVIDER_HOST: JSON.stringify({ provider: providers.provider, elsewhere: providers.elsewhere }) }),
  SETUP_TIMEOUT_MS,
  'bundling the worker and starting Miniflare',
);
afterAll(async () => {
  await worker.dispose();
  await wireControl.close();
  await providers.close();
});

let casePaths: string[][];
try {
  casePaths = await withTimeout(json<string[][]>(await worker.fetch('/cases')), SETUP_TIMEOUT_MS, 'GET /cases');
} catch (error) {
  await worker.dispose(); // afterAll never runs when collection fails
  await wireControl.close();
  await providers.close();
  throw error;
}

const results = new Map<string, CaseResult>();
beforeAll(async () => {
  const run = await json<CaseResult[]>(await worker.fetch('/run', { method: 'POST' }));
  for (const r of run) results.set(r.name, r);
}, RUN_TIMEOUT_MS);

/** Re-throws a worker-side failure with its message and a stack mapped to the sources. */
function report(path: readonly string[]): void {
  const result = results.get(fullName(path));
  if (!result) throw new Error('the worker returned no result for this case (did /run fail?)');
  if (result.ok) return;
  const error = result.error;
  const failure = Object.assign(new Error(error?.message ?? 'failed in workerd'), {
    // vitest prints a diff for errors carrying these, as it does for its own assertions.
    ...(error?.diff ? { showDiff: true, ...error.diff } : {}),
  });
  failure.name = error?.name ?? 'Error';
  failure.stack = worker.remapStack(error?.stack || `${failure.name}: ${failure.message}`);
  throw failure;
}

/** Declares nested describes mirroring the suite's own, with one `it` per case. */
function declare(paths: readonly string[][], depth: number): void {
  const groups = new Map<string, string[][]>();
  for (const p of paths) {
    const head = p[depth];
    if (head === undefined) continue;
    if (p.length === depth + 1) {
      it(head, () => report(p));
    } else if (!groups.has(head)) {
      const members = paths.filter((q) => q.length > depth + 1 && q[depth] === head);
      groups.set(head, members);
      describe(head, () => declare(members, depth + 1));
    }
  }
}

describe(`workerd (lib from ${libSource})`, () => {
  it('refuses code generation, so passing cases prove eval-freedom', async () => {
    const probe = await json<CodegenProbe>(await worker.fetch('/codegen'));
    expect(probe).toMatchObject({ refused: true, errorName: 'EvalError' });
    expect(probe.message).toMatch(/code generation from strings disallowed/i);
  });

  declare(casePaths, 0);
});
