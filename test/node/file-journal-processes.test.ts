/**
 * fileJournal across processes: racing appends at one expectedLength (one wins, the rest get
 * journal.conflict), a lock left by a SIGKILLed holder (broken, not waited on forever), an
 * engine run suspended in one process and resolved and resumed in another (no model turn or
 * tool call paid twice), and many processes resolving one approval at once (the first
 * resolution journaled wins, and only it is journaled).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import type { JournalLease } from '../../src/core/journal/store.js';
import process from 'node:process';
import { fileJournal } from '../../src/node/index.js';
import { bundleFixtures, startChild, type Bundles } from './journal-children.js';

const RACERS = 6;
const step = (name: string): JournalEntry => ({ v: 1, type: 'step', name, value: name });

let bundles: Bundles;
beforeAll(async () => {
  bundles = await bundleFixtures(['journal-appender', 'journal-engine', 'journal-leaser']);
});
afterAll(() => bundles.remove());

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-journal-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const appender = (...args: string[]) => startChild(bundles.path('journal-appender'), args);
const engineChild = (...args: string[]) => startChild(bundles.path('journal-engine'), args);
const leaser = (...args: string[]) => startChild(bundles.path('journal-leaser'), args);
/** The leaser's answer to the command about `tag`. */
const answerTo = (child: ReturnType<typeof leaser>, tag: string) => child.line((l) => l.startsWith(`appended ${tag}`) || l.startsWith(`failed ${tag} `));
const codeOfPromise = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code);
const logLines = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : []);

describe('fileJournal across processes', () => {
  it(`${RACERS} processes append at the same expectedLength: exactly one wins, the others get journal.conflict`, async () => {
    await fileJournal({ dir }).append('race', [step('a'), step('b')], 0);
    const children = Array.from({ length: RACERS }, (_, i) => appender('append', dir, 'race', '2', `racer-${i}`));
    await Promise.all(children.map((child) => child.line((l) => l === 'ready')));
    for (const child of children) child.send('go');
    const outcomes = await Promise.all(children.map((child) => child.result<{ outcome: string }>()));
    const winners = outcomes.flatMap((o, i) => (o.outcome === 'won' ? [`racer-${i}`] : []));
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'journal.conflict')).toHaveLength(RACERS - 1);
    expect(await fileJournal({ dir }).load('race')).toEqual([step('a'), step('b'), step(winners[0]!)]);
  }, 60_000);

  it('a lock left by a SIGKILLed holder does not wedge the run', async () => {
    await fileJournal({ dir }).append('held', [step('a')], 0);
    const holder = appender('hold', dir, 'held', '1');
    await holder.line((l) => l === 'holding');
    const lock = path.join(dir, 'held.jsonl.lock');
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${holder.pid} `));
    expect(await holder.kill()).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true);
    const started = Date.now();
    await fileJournal({ dir }).append('held', [step('b')], 1);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(existsSync(lock)).toBe(false);
    expect(await fileJournal({ dir }).load('held')).toEqual([step('a'), step('b')]);
  }, 60_000);

  it('an engine suspends on an approval in one process; another resolves and resumes it, paying for nothing twice', async () => {
    const log = path.join(dir, 'calls.log');
    const started = await engineChild('start', dir, 'pay-1', log).result<{ status: string; keys: string[] }>();
    expect(started).toMatchObject({ status: 'suspended', keys: [expect.any(String)] });
    expect(logLines(log)).toEqual(['model 0']);

    const resumed = await engineChild('resume', dir, 'pay-1', log, started.keys[0]!, 'allow').result();
    expect(resumed).toEqual({ resolved: true, outcome: { status: 'completed', value: 'paid' } });
    expect(logLines(log)).toEqual(['model 0', 'pay 5', 'model 1']);
    const entries = await fileJournal({ dir }).load('pay-1');
    // Until fileJournal has a claim of its own, the engine keeps its lease in lease entries.
    expect(entries.filter((e) => e.type !== 'lease').map((e) => e.type)).toEqual(['run:start', 'spawn', 'turn', 'approval', 'resolution', 'tool', 'turn', 'agent:end', 'run:end']);
  }, 60_000);

  it(`${RACERS} processes resolve one suspended approval at once: one returns true, one resolution is journaled`, async () => {
    const log = path.join(dir, 'calls.log');
    const started = await engineChild('start', dir, 'pay-2', log).result<{ status: string; keys: string[] }>();
    const key = started.keys[0]!;
    const decisions = Array.from({ length: RACERS }, (_, i) => `${i % 2 === 0 ? 'allow' : 'deny'}:racer ${i}`);
    const children = decisions.map((decision) => engineChild('resolve', dir, 'pay-2', log, key, decision));
    await Promise.all(children.map((child) => child.line((l) => l === 'ready')));
    for (const child of children) child.send('go');
    const results = await Promise.all(children.map((child) => child.result<{ resolved: boolean }>()));
    const winners = results.flatMap((r, i) => (r.resolved ? [i] : []));
    expect(results.filter((r) => !r.resolved && Object.keys(r).join() === 'resolved')).toHaveLength(RACERS - 1);
    expect(winners).toHaveLength(1);

    const resolutions = (await fileJournal({ dir }).load('pay-2')).filter((e) => e.type === 'resolution');
    const allowed = winners[0]! % 2 === 0;
    expect(resolutions).toEqual([expect.objectContaining({ key, decision: allowed ? 'allow' : 'deny', reason: `racer ${winners[0]}`, by: 'external' })]);

    // Resumed elsewhere, the winner's decision stands: the tool ran once if it allowed, never if it denied.
    const resumed = await engineChild('resume', dir, 'pay-2', log, key, 'allow:late').result();
    expect(resumed).toEqual({ resolved: false, outcome: { status: 'completed', value: 'paid' } });
    expect(logLines(log)).toEqual(['model 0', ...(allowed ? ['pay 5'] : []), 'model 1']);
  }, 60_000);
});

describe('fileJournal leases across processes', () => {
  const LEASE_MS = 600;

  it('a SIGKILLed holder does not keep the run: another process claims it at once (its pid is gone) and goes on', async () => {
    await fileJournal({ dir }).append('run', [step('a')], 0);
    const holder = leaser('lease', dir, 'run', '60000');
    await holder.line((l) => l === 'holding');
    expect(await codeOfPromise(fileJournal({ dir }).claim!('run', { holder: 'parent', ms: LEASE_MS }))).toBe('run.claimed');
    await holder.kill();
    const started = Date.now();
    const lease = await fileJournal({ dir }).claim!('run', { holder: 'parent', ms: LEASE_MS });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await lease.load()).toEqual([step('a')]);
    await lease.append([step('b')], 1);
    await lease.release();
    expect(await fileJournal({ dir }).load('run')).toEqual([step('a'), step('b')]);
  }, 60_000);

  it('a SIGSTOPped holder loses the lease after ms; resumed, its append is run.lease_lost and writes nothing', async () => {
    await fileJournal({ dir }).append('run', [step('a')], 0);
    const holder = leaser('lease', dir, 'run', String(LEASE_MS));
    await holder.line((l) => l === 'holding');
    process.kill(holder.pid, 'SIGSTOP');
    const stopped = Date.now();
    let lease: JournalLease | undefined;
    while (lease === undefined) {
      lease = await fileJournal({ dir }).claim!('run', { holder: 'parent', ms: LEASE_MS }).catch((error: { code?: string }) => {
        if (error.code !== 'run.claimed' || Date.now() - stopped > 10_000) throw error;
        return undefined;
      });
      if (lease === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Its last renewal was at most ms / 3 before the stop.
    expect(Date.now() - stopped).toBeGreaterThanOrEqual((LEASE_MS * 2) / 3 - 25);
    await lease.append([step('b')], 1);
    process.kill(holder.pid, 'SIGCONT');
    holder.send('append 1 late');
    expect(await answerTo(holder, 'late')).toBe('failed late run.lease_lost');
    holder.send('append 2 later');
    expect(await answerTo(holder, 'later')).toBe('failed later run.lease_lost');
    await lease.release();
    expect(await fileJournal({ dir }).load('run')).toEqual([step('a'), step('b')]);
    await holder.kill();
  }, 60_000);

  it('a writer without the lease appends while another process holds it: the holder serves it, then meets journal.conflict', async () => {
    await fileJournal({ dir }).append('run', [step('a')], 0);
    const holder = leaser('lease', dir, 'run', String(LEASE_MS));
    await holder.line((l) => l === 'holding');
    const started = Date.now();
    await fileJournal({ dir }).append('run', [step('resolution')], 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await codeOfPromise(fileJournal({ dir }).append('run', [step('again')], 1))).toBe('journal.conflict');
    holder.send('append 1 stale');
    expect(await answerTo(holder, 'stale')).toBe('failed stale journal.conflict');
    holder.send('append 2 next');
    expect(await answerTo(holder, 'next')).toBe('appended next');
    holder.send('release');
    await holder.line((l) => l === 'released');
    expect(await fileJournal({ dir }).load('run')).toEqual([step('a'), step('resolution'), step('next')]);
    expect(readdirSync(dir).sort()).toEqual(['.rulvar-dir', 'run.jsonl']);
  }, 60_000);

  it('a writer waiting on a holder that dies without serving it takes the lock and serves its own request', async () => {
    await fileJournal({ dir }).append('run', [step('a')], 0);
    const holder = leaser('lease', dir, 'run', '60000', 'deaf');
    await holder.line((l) => l === 'holding');
    const appending = fileJournal({ dir }).append('run', [step('resolution')], 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.kill();
    await appending;
    expect(await fileJournal({ dir }).load('run')).toEqual([step('a'), step('resolution')]);
    expect(readdirSync(dir).sort()).toEqual(['.rulvar-dir', 'run.jsonl']);
  }, 60_000);
});
