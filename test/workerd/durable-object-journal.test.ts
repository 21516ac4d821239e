/**
 * durableObjectJournal in a real Durable Object: test/workerd/fixtures/journal-worker.ts,
 * bundled with esbuild as a Worker build would bundle it and run in plain Miniflare (code
 * generation refused, no nodejs_compat), on both storage backends. A run suspends in one
 * request, is resolved in a second and resumed in a third, each a fetch to the object's stub
 * over an engine built for that request alone; then again with Miniflare restarted between
 * requests over the same persisted storage. The ask carries a memo too big for one storage
 * value, so it lives in real storage only as parts. Two writers race on one run in a real
 * object too: two appends at one expectedLength, and two resolution requests at once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/index.js';
import type { RequestReport } from './fixtures/journal-worker.js';
import { objectFetch } from './object-fetch.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const outfile = path.join(here, '.bundle', 'journal-worker.js');
const RUN_ID = 'invoice 7/€';
const CASE_TIMEOUT_MS = 60_000;
/** The fixture's memo, too big for one storage value on either backend. */
const MEMO = '€'.repeat(1_200_000);

/** Under `npm test` (RULVAR_TEST_DIST=1) the Worker runs the built package, as core.test.ts does. */
const builtPackage: Plugin = {
  name: 'rulvar-dist',
  setup(b) {
    b.onResolve({ filter: /\/src\/(edge|testing)\/index\.js$/ }, (args) => ({
      path: path.join(root, 'dist', /\/src\/(edge|testing)\/index\.js$/.exec(args.path)?.[1] ?? 'edge', 'index.js'),
    }));
  },
};

let persistRoot: string;
beforeAll(async () => {
  await build({
    entryPoints: [path.join(here, 'fixtures', 'journal-worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser', // a stray `node:` import fails the build instead of failing in workerd
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    logLevel: 'warning',
    plugins: process.env['RULVAR_TEST_DIST'] === '1' ? [builtPackage] : [],
  });
  persistRoot = await mkdtemp(path.join(tmpdir(), 'rulvar-do-journal-'));
});
afterAll(() => rm(persistRoot, { recursive: true, force: true }));

/** One Miniflare over the bundle, its objects' storage persisted under `persist`. */
function startMiniflare(useSQLite: boolean, persist: string): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath: outfile,
    compatibilityDate: '2026-04-01',
    durableObjects: { RUNS: { className: 'JournalRun', useSQLite } },
    durableObjectsPersist: persist,
  });
}

async function call<T>(mf: Miniflare, route: string, body?: unknown, query = ''): Promise<T> {
  const init = body === undefined ? { method: route === '/journal' || route === '/alarm' ? 'GET' : 'POST' } : { method: 'POST', body: JSON.stringify(body) };
  const res = await objectFetch(mf, 'invoices')(`http://runs${route}?run=${encodeURIComponent(RUN_ID)}${query}`, init);
  if (!res.ok) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Start, resolve, resume and load the journal, one request each. With `restart`, the
 * Miniflare that suspended the run is disposed and a new one over the same persisted storage
 * takes the other requests, as after a deploy or an eviction while an approval waits.
 */
async function threeRequests(useSQLite: boolean, restart: boolean) {
  const persist = await mkdtemp(path.join(persistRoot, useSQLite ? 'sqlite-' : 'kv-'));
  let mf = startMiniflare(useSQLite, persist);
  try {
    const started = await call<RequestReport>(mf, '/start');
    if (restart) {
      await mf.dispose();
      mf = startMiniflare(useSQLite, persist);
    }
    const resolved = await call<RequestReport>(mf, '/resolve', { key: started.outcome?.approvals?.[0]?.key });
    const resumed = await call<RequestReport>(mf, '/resume');
    return { started, resolved, resumed, journal: await call<JournalEntry[]>(mf, '/journal') };
  } finally {
    await mf.dispose();
  }
}

describe.each([
  ['SQLite-backed', true],
  ['KV-backed', false],
])('durableObjectJournal in a %s Durable Object under plain Miniflare', (_backend, useSQLite) => {
  for (const restart of [false, true]) {
    const how = restart ? 'Miniflare restarted while the approval waits' : 'one Miniflare';
    it(`suspend, resolve, resume: three requests, ${how}; one model call per turn, the tool once`, async () => {
      const { started, resolved, resumed, journal } = await threeRequests(useSQLite, restart);
      expect(started).toMatchObject({ modelCalls: 1, toolRuns: 0, outcome: { status: 'suspended', approvals: [{ toolName: 'pay' }] } });
      expect(resolved).toEqual({ modelCalls: 0, toolRuns: 0, resolved: true });
      expect(resumed).toEqual({ modelCalls: 1, toolRuns: 1, outcome: { status: 'completed', value: 'paid' } });

      expect(journal.map((e) => e.type)).toEqual(['run:start', 'spawn', 'turn', 'approval', 'resolution', 'tool', 'turn', 'agent:end', 'run:end']);
      const approval = journal.find((e) => e.type === 'approval');
      expect(approval?.type === 'approval' && (approval.input as { memo: string }).memo === MEMO).toBe(true);
      expect(journal.find((e) => e.type === 'tool')).toMatchObject({ result: { toolName: 'pay', isError: false, output: { paid: 5 } } });
    }, CASE_TIMEOUT_MS);
  }
});

describe('two writers on one run in a real Durable Object', () => {
  it.each([
    ['SQLite-backed', true],
    ['KV-backed', false],
  ])('%s: two appends at one expectedLength, one lands and the other is journal.conflict; two racing resolution requests, one wins', async (_backend, useSQLite) => {
    const persist = await mkdtemp(path.join(persistRoot, 'race-'));
    const mf = startMiniflare(useSQLite, persist);
    try {
      const race = await call<{ settled: string[]; length: number }>(mf, '/race');
      expect(race).toEqual({ settled: ['appended', 'journal.conflict'], length: 1 });
      const again = await call<{ settled: string[]; length: number }>(mf, '/race');
      expect(again).toEqual({ settled: ['appended', 'journal.conflict'], length: 2 });
    } finally {
      await mf.dispose();
    }
    const racing = startMiniflare(useSQLite, await mkdtemp(path.join(persistRoot, 'race-')));
    try {
      const started = await call<RequestReport>(racing, '/start');
      const key = started.outcome?.approvals?.[0]?.key;
      const answers = await Promise.all([call<RequestReport>(racing, '/resolve', { key }), call<RequestReport>(racing, '/resolve', { key })]);
      expect(answers.map((a) => a.resolved).sort()).toEqual([false, true]);
      const journal = await call<JournalEntry[]>(racing, '/journal');
      expect(journal.filter((e) => e.type === 'resolution')).toHaveLength(1);
    } finally {
      await racing.dispose();
    }
  }, CASE_TIMEOUT_MS);
});

describe('approval deadlines in a Durable Object', () => {
  it('an alarm set from nextDeadline closes a passed deadline and finishes the run with no request in flight', async () => {
    const persist = await mkdtemp(path.join(persistRoot, 'alarm-'));
    const mf = startMiniflare(true, persist);
    try {
      const started = await call<RequestReport>(mf, '/start', undefined, '&deadlineMs=300');
      expect(started).toMatchObject({ modelCalls: 1, toolRuns: 0, outcome: { status: 'suspended' } });
      expect(await call(mf, '/alarm')).toBeNull();
      // Nothing is sent from here on: only the object's alarm can move the run.
      let report: RequestReport | null = null;
      for (const started = Date.now(); report === null && Date.now() - started < 15_000; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        report = await call<RequestReport | null>(mf, '/alarm');
      }
      expect(report).toEqual({ modelCalls: 1, toolRuns: 0, outcome: { status: 'completed', value: 'paid' } });
      const journal = await call<JournalEntry[]>(mf, '/journal');
      const resolution = journal.find((e) => e.type === 'resolution');
      expect(resolution).toMatchObject({ decision: 'deny', by: 'timeout' });
      const tool = journal.find((e) => e.type === 'tool');
      expect(tool).toMatchObject({ result: { isError: true, output: 'permission denied: the approval timed out' } });
    } finally {
      await mf.dispose();
    }
  }, CASE_TIMEOUT_MS);
});

describe('the journal Worker bundle', () => {
  it('holds no code generation (the isolate would refuse it anyway)', async () => {
    const code = await readFile(outfile, 'utf8');
    expect(code).not.toMatch(/new Function\s*\(/);
    expect(code).not.toMatch(/\beval\s*\(/);
    expect(code).toContain('rulvar/journal/');
  });
});
