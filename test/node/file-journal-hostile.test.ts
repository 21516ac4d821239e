/**
 * fileJournal in a hostile directory: whoever can write to it can put a symlink (to a file
 * outside, dangling, to a directory), a hard link, a FIFO, a socket, a device or a directory
 * at a run path or at a lock path. Each is `journal.unavailable` naming the path, at once
 * (well inside the 5 s lock bound), and nothing outside the directory is written; a hard link
 * at a lock path is broken as stale instead (a lock has two names while it is taken). Four
 * FIFOs do not stall an unrelated journal (they used to hold libuv's four threads).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { fileJournal } from '../../src/node/index.js';

const step = (name: string): JournalEntry => ({ v: 1, type: 'step', name, value: name });
/** Far more than any refusal here takes, far less than the 5 s a waiter would spend on a live lock. */
const PROMPT_MS = 1_500;
const SECRET = 'token-outside-the-journal-dir';

let root: string;
let dir: string;
let outside: string;
const cleanups: (() => void)[] = [];
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'rulvar-hostile-'));
  dir = path.join(root, 'journals');
  mkdirSync(dir);
  outside = path.join(root, 'token.txt');
  writeFileSync(outside, SECRET);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await rm(root, { recursive: true, force: true });
});

/** Opens a FIFO for writing too, so an open blocked on it returns (only needed when the journal still blocks). */
function unblockLater(fifo: string): void {
  cleanups.push(() => {
    try {
      closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // Already gone or never made.
    }
  });
}

const canMknod = spawnSync('mknod', [path.join(os.tmpdir(), `rulvar-mknod-probe-${process.pid}`), 'c', '1', '3']).status === 0;
if (canMknod) spawnSync('rm', ['-f', path.join(os.tmpdir(), `rulvar-mknod-probe-${process.pid}`)]);

/** What can be put at a path, and how. */
const hostile: [string, (at: string) => Promise<void> | void][] = [
  ['a symlink to a file outside the directory', (at) => symlinkSync(outside, at)],
  ['a dangling symlink', (at) => symlinkSync(path.join(root, 'nowhere'), at)],
  ['a symlink to a directory', (at) => symlinkSync(root, at)],
  ['a FIFO', (at) => {
    if (spawnSync('mkfifo', [at]).status !== 0) throw new Error('mkfifo failed');
    unblockLater(at);
  }],
  ['a unix socket', async (at) => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(at, resolve));
    cleanups.push(() => server.close());
  }],
  ['a directory', (at) => mkdirSync(at)],
];

async function outcome(work: Promise<unknown>): Promise<{ ms: number; code: string | undefined; message: string }> {
  const started = performance.now();
  const error = await work.then(() => undefined, (e: Error & { code?: string }) => e);
  return { ms: performance.now() - started, code: error?.code, message: error?.message ?? 'resolved' };
}

function expectOutsideUntouched(before: { mtimeMs: number }): void {
  expect(readFileSync(outside, 'utf8')).toBe(SECRET);
  expect(statSync(outside).mtimeMs).toBe(before.mtimeMs);
}

describe('fileJournal: something not its own at a run path', () => {
  const cases: [string, (at: string) => Promise<void> | void][] = [
    ...hostile,
    ['a hard link to a file outside the directory', (at) => linkSync(outside, at)],
    ...(canMknod ? [['a character device', (at: string) => void spawnSync('mknod', [at, 'c', '1', '3'])] as [string, (at: string) => void]] : []),
  ];
  for (const [what, put] of cases) {
    it(`${what}: append and load are journal.unavailable naming the path, at once; nothing outside is written`, async () => {
      const runPath = path.join(dir, 'r1.jsonl');
      await put(runPath);
      const before = statSync(outside);
      const journal = fileJournal({ dir });
      for (const attempt of [() => journal.append('r1', [step('a')], 0), () => journal.load('r1'), () => fileJournal({ dir }).append('r1', [step('b')], 0)]) {
        const { ms, code, message } = await outcome(attempt());
        expect(code).toBe('journal.unavailable');
        expect(message).toContain(JSON.stringify(runPath));
        expect(message).not.toContain(SECRET);
        expect(ms).toBeLessThan(PROMPT_MS);
      }
      expectOutsideUntouched(before);
      // Other runs of the directory are not held up by it.
      await journal.append('r2', [step('a')], 0);
      expect(await journal.load('r2')).toEqual([step('a')]);
    });
  }
});

describe('fileJournal: something not its own at a lock path', () => {
  const cases = [...hostile, ...(canMknod ? [['a character device', (at: string) => void spawnSync('mknod', [at, 'c', '1', '3'])] as [string, (at: string) => void]] : [])];
  for (const [what, put] of cases) {
    it(`${what}: append and load are journal.unavailable naming the lock, at once; the run file and the outside file are unchanged`, async () => {
      await fileJournal({ dir }).append('r1', [step('a')], 0);
      const runBefore = readFileSync(path.join(dir, 'r1.jsonl'));
      const lockPath = path.join(dir, 'r1.jsonl.lock');
      await put(lockPath);
      const before = statSync(outside);
      for (const attempt of [() => fileJournal({ dir }).append('r1', [step('b')], 1), () => fileJournal({ dir }).load('r1'), () => fileJournal({ dir }).claim!('r1', { holder: 'h', ms: 1_000 })]) {
        const { ms, code, message } = await outcome(attempt());
        expect(code).toBe('journal.unavailable');
        expect(message).toContain(JSON.stringify(lockPath));
        expect(ms).toBeLessThan(PROMPT_MS);
      }
      expect(readFileSync(path.join(dir, 'r1.jsonl'))).toEqual(runBefore);
      expectOutsideUntouched(before);
      // Nothing was broken or moved aside: what was put there is still there.
      expect(lstatSync(lockPath, { throwIfNoEntry: false })).toBeDefined();
    });
  }
});

describe('fileJournal: a hard link at a lock path', () => {
  // A lock has two names while it is taken (its private name, then link(2)), so a second name
  // cannot be refused there: the file is read as a token, is none, and is broken as stale.
  it('is broken as stale like any lock that holds no token: the file it links to keeps its bytes and its own name', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const lockPath = path.join(dir, 'r1.jsonl.lock');
    linkSync(outside, lockPath);
    const before = statSync(outside);
    await fileJournal({ dir }).append('r1', [step('b')], 1);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
    expectOutsideUntouched(before);
    expect(lstatSync(lockPath, { throwIfNoEntry: false })).toBeUndefined();
    expect(statSync(outside).nlink).toBe(1);
  });
});

describe('fileJournal: FIFOs do not stall the process or the inbox', () => {
  it('a FIFO, symlink or directory named like an inbox request is refused without stalling the inbox: the real request behind it is served', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const lease = await fileJournal({ dir }).claim!('r1', { holder: 'h', ms: 30_000 });
    const stamp = String(Date.now() - 1_000).padStart(15, '0');
    const named = (i: number) => path.join(dir, `r1.jsonl.req.${stamp}.${process.pid}.${'0000000' + i}-0000-0000-0000-000000000000`);
    if (spawnSync('mkfifo', [named(1)]).status !== 0) throw new Error('mkfifo failed');
    unblockLater(named(1));
    symlinkSync(outside, named(2));
    mkdirSync(named(3));
    const before = statSync(outside);
    const started = performance.now();
    await fileJournal({ dir }).append('r1', [step('b')], 1);
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
    expect(await lease.load()).toEqual([step('a'), step('b')]);
    expectOutsideUntouched(before);
    await lease.release();
  });

  it('four FIFOs at run and lock paths in four directories: each refused at once, and an unrelated journal keeps working', async () => {
    const attempts: Promise<Awaited<ReturnType<typeof outcome>>>[] = [];
    for (let i = 0; i < 4; i += 1) {
      const fifoDir = path.join(root, `fifo-${i}`);
      mkdirSync(fifoDir);
      if (i % 2 === 1) writeFileSync(path.join(fifoDir, 'r.jsonl'), `${JSON.stringify(step('a'))}\n`);
      const fifo = path.join(fifoDir, i % 2 === 0 ? 'r.jsonl' : 'r.jsonl.lock');
      if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error('mkfifo failed');
      unblockLater(fifo);
      const journal = fileJournal({ dir: fifoDir });
      attempts.push(outcome(journal.load('r')), outcome(journal.append('r', [step('b')], i % 2)));
    }
    const unrelated = fileJournal({ dir: path.join(root, 'unrelated') });
    const work = (async () => {
      await unrelated.append('u', [step('a')], 0);
      return unrelated.load('u');
    })();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), 3_000)));
    expect(await Promise.race([work, stalled])).toEqual([step('a')]);
    clearTimeout(timer);
    const outcomes = await Promise.all(attempts);
    expect(outcomes.map((o) => o.code)).toEqual(Array(8).fill('journal.unavailable'));
    expect(outcomes.every((o) => o.message.includes('a FIFO') && o.ms < PROMPT_MS)).toBe(true);
  });
});
