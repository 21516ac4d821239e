/**
 * Two real engines on one run inside a real Durable Object, under plain Miniflare: two
 * requests to one run at once, each resolving the approval and resuming with an engine of
 * its own, over examples/worker's workflow, sources and durableObjectJournal (the fixture
 * example-worker-two-engines.ts drops RunObject's queue, which keeps the Worker itself from
 * ever doing this). Both engines load the journal before either appends (the fixture holds
 * each at its first effect until the other got there or settled).
 *
 * What is promised: one engine holds the run's lease (docs/journals.md, leases); the other
 * is refused run.claimed before any effect, so the note is saved once. (Before leases, the
 * loser ran the effect too and only its append conflicted.) The store-level races (two appends at one
 * expectedLength, two resolveExternal requests) are in durable-object-journal.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/index.js';
import { root, startRemote, TOKEN, type Remote } from './example-worker-harness.js';
import type { DecideReport } from './example-worker-two-engines.js';
import { objectFetch } from './object-fetch.js';

// The fixture imports @rulvar/core, which is dist/: runs under npm test (RULVAR_TEST_DIST=1).
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const RUN_ID = 'two-engines-1';

/** The request that did not get the lease: refused before it acted. */
const LOSER = { status: 'failed', code: 'run.claimed', saves: 0 } as const;

let remote: Remote;
let outdir: string;
let mf: Miniflare;

beforeAll(async () => {
  if (!enabled) return;
  outdir = await mkdtemp(path.join(tmpdir(), 'rulvar-two-engines-'));
  remote = await startRemote();
  await build({
    entryPoints: [path.join(root, 'test/workerd/example-worker-two-engines.ts')],
    outfile: path.join(outdir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser', // a stray `node:` import fails the build instead of failing in workerd
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    logLevel: 'warning',
  });
  mf = new Miniflare({
    modules: true,
    scriptPath: path.join(outdir, 'index.js'),
    // Module paths are relative to this root; the bundle lives outside the repository.
    modulesRoot: outdir,
    compatibilityDate: '2026-04-01',
    durableObjects: { RUNS: { className: 'TwoEngines', useSQLite: true } },
    bindings: { MCP_URL: remote.url, MCP_TOKEN: TOKEN },
  });
  await mf.ready;
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await mf?.dispose();
  await remote?.close();
  await rm(outdir, { recursive: true, force: true });
});

async function call<T>(route: string, body?: unknown): Promise<T> {
  const init = body === undefined ? { method: 'GET' } : { method: 'POST', body: JSON.stringify(body) };
  const res = await objectFetch(mf, RUN_ID)(`http://run${route}?run=${encodeURIComponent(RUN_ID)}`, init);
  if (!res.ok) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

describe.runIf(enabled)('two engines on one run in a real Durable Object', () => {
  it('two requests resolve and resume one run at once: one append wins, the other request is refused cleanly', async () => {
    const started = await call<{ status: string; key: string }>('/start', { task: 'shared' });
    expect(started).toMatchObject({ status: 'suspended', key: expect.any(String) });
    const reports = await Promise.all(['a', 'b'].map((label) => call<DecideReport>('/decide', { key: started.key, label })));
    expect(reports.map((r) => r.gateTimedOut)).toEqual([false, false]);
    // One of the two resolutions was journaled; the other found the approval closed.
    expect(reports.map((r) => r.resolved).sort()).toEqual([false, true]);

    const winner = reports.find((r) => r.status === 'completed');
    const loser = reports.find((r) => r !== winner);
    expect(winner).toMatchObject({ status: 'completed', saves: 1 });
    expect(loser).toMatchObject(LOSER);

    const journal = await call<JournalEntry[]>('/journal');
    expect(journal.filter((e) => e.type === 'resolution')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'tool' && e.result.toolName === 'notes_save_note')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'run:end')).toMatchObject([{ value: 'Saved the note "shared".' }]);
    // Nothing after the end: the loser wrote nothing once its append was refused.
    expect(journal.at(-1)?.type).toBe('run:end');
  }, 60_000);
});
