/**
 * examples/worker's RunObject on its own, over the in-memory Durable Object storage fake, in
 * Node: the orderings a live workerd will not produce on demand. Its alarm is recorded and
 * never fires by itself, so a decision can arrive after the deadline but before the alarm
 * ran; and storage can refuse a put mid-way, so the alarm's work throws after the run was
 * marked 'running' and workerd's retry (alarm() called again) must still finish the run. And
 * a run can end with an ask left open, which no request can produce on demand either.
 */
import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durableObjectJournal, type JournalEntry } from '../../src/core/index.js';
import type { DurableObjectStateLike, Env } from '../../examples/worker/src/env.js';
import type { RunObject as RunObjectClass } from '../../examples/worker/src/run-object.js';
import { fakeDurableObjectStorage } from '../core/durable-object-storage-fake.js';
import { SECRETS, startRemote, type Remote } from './example-worker-harness.js';

// The example imports @rulvar/core, which is dist/: runs under npm test (RULVAR_TEST_DIST=1).
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
/** Long enough that the starting request suspends well before it, short enough to wait for. */
const DEADLINE_MS = 400;
const DENIED = 'The note was not saved: permission denied: the approval timed out';

let remote: Remote;
let RunObject: typeof RunObjectClass;

beforeAll(async () => {
  if (!enabled) return;
  remote = await startRemote();
  ({ RunObject } = await import('../../examples/worker/src/run-object.js'));
});

afterAll(async () => {
  await remote?.close();
});

interface Harness {
  readonly object: RunObjectClass;
  readonly storage: ReturnType<typeof fakeDurableObjectStorage>;
  /** Alarm times the object asked for; nothing fires them. */
  readonly alarms: number[];
  /** How many puts of a settled run record (not 'running') to refuse next. */
  faults: { settledRecordPuts: number };
}

function runObject(): Harness {
  const storage = fakeDurableObjectStorage();
  const alarms: number[] = [];
  const faults = { settledRecordPuts: 0 };
  const platform = {
    async put(key: string, value: unknown) {
      if (key === 'run' && (value as { status?: string }).status !== 'running' && faults.settledRecordPuts > 0) {
        faults.settledRecordPuts -= 1;
        throw new Error('storage refused the put');
      }
      storage.data.set(key, structuredClone(value));
    },
    async delete(key: string) {
      return storage.data.delete(key);
    },
    async setAlarm(at: number) {
      alarms.push(at);
    },
    async deleteAlarm() {
      alarms.length = 0;
    },
  };
  const state: DurableObjectStateLike = { storage: Object.assign(storage, platform) };
  const env: Env = {
    RUNS: { idFromName: () => undefined, get: () => ({ fetch: () => Promise.reject(new Error('one object only')) }) },
    MCP_URL: remote.url,
    ...SECRETS,
    APPROVAL_DEADLINE_MS: String(DEADLINE_MS),
  };
  return { object: new RunObject(state, env), storage, alarms, faults };
}

interface Answer {
  readonly status: number;
  readonly body: { runId?: string; status?: string; value?: unknown; pending?: { key: string; deadlineAt?: string }[]; error?: { code: string; message: string } };
}

async function send(object: RunObjectClass, path: string, message?: unknown): Promise<Answer> {
  const init = message === undefined ? {} : { method: 'POST', body: JSON.stringify(message) };
  const response = await object.fetch(new Request(`https://run${path}`, init));
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** Starts a run, checks it suspended on its one approval, and waits until that deadline passed. */
async function suspendedPastDeadline({ object, alarms }: Harness): Promise<string> {
  const started = await send(object, '/start', { runId: crypto.randomUUID(), task: 'tides' });
  expect(started.body).toMatchObject({ status: 'suspended', pending: [{ deadlineAt: expect.any(String) }] });
  const deadline = Date.parse(started.body.pending?.[0]?.deadlineAt ?? '');
  expect(alarms).toEqual([deadline]);
  await new Promise((resolve) => setTimeout(resolve, deadline + 100 - Date.now()));
  return started.body.pending?.[0]?.key ?? '';
}

async function resolutions(object: RunObjectClass): Promise<JournalEntry[]> {
  const journal = (await send(object, '/journal')).body as unknown as JournalEntry[];
  return journal.filter((e) => e.type === 'resolution' || e.type === 'run:end');
}

describe.runIf(enabled)('examples/worker RunObject over fake storage', () => {
  it('a decision on an approval its run ended without: 409 approval.closed, nothing journaled, nothing resumed', async () => {
    const harness = runObject();
    const started = await send(harness.object, '/start', { runId: crypto.randomUUID(), task: 'orphan' });
    const runId = started.body.runId ?? '';
    const key = started.body.pending?.[0]?.key ?? '';
    // The run ends with the ask still open, as when a resumed agent was re-keyed (its remote
    // server's tools changed) and finished without coming back for it.
    const journal = durableObjectJournal(harness.storage);
    await journal.append(runId, [{ v: 1, type: 'run:end', value: 'finished elsewhere' }], (await journal.load(runId)).length);
    harness.storage.data.set('run', { runId, status: 'completed' });
    const before = await journal.load(runId);
    const remoteRequests = remote.endpoint.requests.length;

    const late = await send(harness.object, '/resolve', { key, decision: 'allow', decider: 'token:test' });
    expect(late).toMatchObject({ status: 409, body: { error: { code: 'approval.closed', message: expect.stringContaining('the run has ended without it') } } });
    expect(await journal.load(runId)).toEqual(before);
    expect(remote.endpoint.requests.length).toBe(remoteRequests);
    expect((await send(harness.object, '/view')).body).toEqual({ runId, status: 'completed', pending: [], value: 'finished elsewhere' });
  });

  it('a link that expired while its request waited for the object is refused there: 410 link.expired, nothing journaled', async () => {
    const harness = runObject();
    const started = await send(harness.object, '/start', { runId: crypto.randomUUID(), task: 'queued' });
    const runId = started.body.runId ?? '';
    const key = started.body.pending?.[0]?.key ?? '';
    const journal = (await send(harness.object, '/journal')).body;
    // The front verified the link a moment ago; by the time the object takes the request it has expired.
    const link = { runId, key, expiresAt: Date.now() - 1, id: '0'.repeat(32) };
    const late = await send(harness.object, '/resolve', { key, decision: 'allow', decider: `link:${link.id}`, link });
    expect(late).toMatchObject({ status: 410, body: { error: { code: 'link.expired' } } });
    expect((await send(harness.object, '/journal')).body).toEqual(journal);
    const live = await send(harness.object, '/resolve', { key, decision: 'allow', decider: `link:${link.id}`, link: { ...link, expiresAt: Date.now() + 60_000 } });
    expect(live).toMatchObject({ status: 200, body: { status: 'completed' } });
  });

  // workerd's input gates keep a second request out while the first only awaits storage, so
  // under Miniflare two racing requests pass whether the object queues them or not; this fake
  // has no gates, and only the object's queue makes the second see the first's resolution.
  it('two requests with one link, racing at the object: one decides, the other is 409 link.used; one resolution, one end', async () => {
    const harness = runObject();
    const started = await send(harness.object, '/start', { runId: crypto.randomUUID(), task: 'raced' });
    const runId = started.body.runId ?? '';
    const key = started.body.pending?.[0]?.key ?? '';
    const link = { runId, key, expiresAt: Date.now() + 60_000, id: 'a'.repeat(32) };
    const resolve = (decision: 'allow' | 'deny') => send(harness.object, '/resolve', { key, decision, decider: `link:${link.id}`, link });
    const answers = await Promise.all([resolve('allow'), resolve('deny')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.findIndex((a) => a.status === 200);
    expect(answers[1 - winner]?.body.error?.code).toBe('link.used');
    expect(await resolutions(harness.object)).toMatchObject([{ type: 'resolution', decision: winner === 0 ? 'allow' : 'deny', decider: `link:${link.id}` }, { type: 'run:end' }]);
  });

  it('a decision after the deadline, before the alarm ran: 409 approval.closed, and one timeout resolution is journaled', async () => {
    const harness = runObject();
    const key = await suspendedPastDeadline(harness);
    const late = await send(harness.object, '/resolve', { key, decision: 'allow', reason: 'too late', decider: 'token:test' });
    expect(late).toMatchObject({ status: 409, body: { error: { code: 'approval.closed', message: expect.stringContaining('its deadline passed first') } } });
    expect(await resolutions(harness.object)).toMatchObject([{ type: 'resolution', key, decision: 'deny', by: 'timeout' }, { type: 'run:end', value: DENIED }]);
    // The late request applied the timeout itself, so the run is settled and nothing is armed.
    expect((await send(harness.object, '/view')).body).toMatchObject({ status: 'completed', pending: [], value: DENIED });
    expect(harness.alarms).toEqual([]);
  });

  // One refused put: the record is put back. Two: putting it back is refused too, and the run is left 'running'.
  it.each([
    ['the record is put back', 1, 'suspended'],
    ['storage refuses putting the record back too, and the run is left running', 2, 'running'],
  ] as const)('the alarm throws after marking the run running (%s): the retry finishes the run', async (_case, refusedPuts, left) => {
    const harness = runObject();
    await suspendedPastDeadline(harness);
    harness.faults.settledRecordPuts = refusedPuts;
    await expect(harness.object.alarm()).rejects.toThrow('storage refused the put');
    expect((await send(harness.object, '/view')).body.status).toBe(left);
    await harness.object.alarm();
    expect((await send(harness.object, '/view')).body).toMatchObject({ status: 'completed', pending: [], value: DENIED });
    expect(await resolutions(harness.object)).toMatchObject([{ by: 'timeout' }, { type: 'run:end' }]);
  });
});
