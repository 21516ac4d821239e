/**
 * fileJournal's lease at the disk floor (issue 25 item 3), in one process: an append under it
 * is one positional write and one fdatasync (no lock file made or removed, the directory
 * synced only for a new name); a load reads only what the lease does not hold; its inbox
 * leaves nothing behind, answers a request a dead server already appended without appending
 * it twice, and a request no live holder takes is withdrawn after 5 s; runs() lists run
 * files only. Across processes: file-journal-processes.test.ts; the lease contract every
 * store keeps: file-journal-contract.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { createFileJournal, fileJournal } from '../../src/node/file-journal.js';
import { nodeJournalFs, type JournalFile, type JournalFs } from '../../src/node/journal-fs.js';

const step = (name: string): JournalEntry => ({ v: 1, type: 'step', name, value: name });
const MS = 30_000;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-lease-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code);

/** The real file system, counting every call by name (a run file's own calls as `file.<name>`). */
function counting(): { fs: JournalFs; calls: string[] } {
  const calls: string[] = [];
  const countFile = (file: JournalFile): JournalFile => {
    const counted = { ...file };
    for (const name of Object.keys(file) as (keyof JournalFile)[]) {
      (counted as Record<string, unknown>)[name] = (...args: unknown[]) => (calls.push(`file.${name}`), (file[name] as (...a: unknown[]) => unknown)(...args));
    }
    return counted;
  };
  const fs = { ...nodeJournalFs } as Record<string, unknown>;
  for (const [name, method] of Object.entries(nodeJournalFs)) {
    fs[name] = (...args: unknown[]) => {
      calls.push(name);
      const result = (method as (...a: unknown[]) => unknown)(...args);
      if (name === 'openOrCreate') return (result as Promise<{ file: JournalFile; created: boolean }>).then((o) => ({ ...o, file: countFile(o.file) }));
      if (name === 'openExisting') return (result as Promise<JournalFile>).then(countFile);
      return result;
    };
  }
  return { fs: fs as unknown as JournalFs, calls };
}

/** The inbox poll's look for the bell, on its own timer. */
const notPolling = (call: string) => call !== 'presentSync';

describe('fileJournal: an append under the lease', () => {
  it('is one positional write and one fdatasync; only a new name syncs the directory; a load reads nothing it holds', async () => {
    const { fs, calls } = counting();
    const journal = createFileJournal({ dir }, fs);
    const lease = await journal.claim!('r1', { holder: 'engine-1', ms: MS });
    calls.length = 0;
    await lease.append([step('a')], 0);
    // The run file is new: it is created, and its name synced into the directory before its first bytes.
    expect(calls.filter(notPolling)).toEqual(['openOrCreate', 'file.stat', 'syncDir', 'file.write', 'file.sync']);
    for (let n = 1; n <= 5; n += 1) {
      calls.length = 0;
      await lease.append([step(`s${n}`), step(`t${n}`)], 2 * n - 1);
      expect(calls.filter(notPolling)).toEqual(['file.write', 'file.sync']);
    }
    calls.length = 0;
    expect(await lease.load()).toHaveLength(11);
    expect(calls.filter(notPolling)).toEqual(['file.stat']);
    await lease.release();
    expect(readdirSync(dir).sort()).toEqual(['.rulvar-dir', 'r1.jsonl']);
    expect(await fileJournal({ dir }).load('r1')).toHaveLength(11);
  });

  it('a claim of a written run reads it once; a conflict needs no file system at all', async () => {
    await fileJournal({ dir }).append('r1', [step('a'), step('b')], 0);
    const { fs, calls } = counting();
    const lease = await createFileJournal({ dir }, fs).claim!('r1', { holder: 'engine-1', ms: MS });
    expect(calls.filter((c) => c === 'file.read').length).toBeGreaterThan(0);
    calls.length = 0;
    expect(await codeOf(lease.append([step('x')], 1))).toBe('journal.conflict');
    expect(calls.filter(notPolling)).toEqual([]);
    // A file with content has a durable name: nothing but the write and its sync.
    await lease.append([step('c')], 2);
    expect(calls.filter(notPolling)).toEqual(['file.write', 'file.sync']);
    await lease.release();
  });

  it('cuts a torn tail it found at its claim before its first append, of any length', async () => {
    for (const tail of ['{"v":1,"ty', `{"v":1,"type":"step","name":"${'x'.repeat(300)}`]) {
      await rm(path.join(dir, 'r1.jsonl'), { force: true });
      await fileJournal({ dir }).append('r1', [step('a')], 0);
      appendFileSync(path.join(dir, 'r1.jsonl'), tail);
      const lease = await fileJournal({ dir }).claim!('r1', { holder: 'engine-1', ms: MS });
      expect(await lease.load()).toEqual([step('a')]);
      await lease.append([step('b')], 1);
      await lease.release();
      expect(readFileSync(path.join(dir, 'r1.jsonl'), 'utf8')).toBe(`${JSON.stringify(step('a'))}\n${JSON.stringify(step('b'))}\n`);
    }
  });

  it('renews itself before an append once a third of ms has passed since the last renewal, and not before', async () => {
    const { fs, calls } = counting();
    // ms long enough that the two first appends land within a third of it on a loaded machine.
    const lease = await createFileJournal({ dir }, fs).claim!('r1', { holder: 'engine-1', ms: 3_000 });
    await lease.append([step('a')], 0);
    calls.length = 0;
    await lease.append([step('b')], 1);
    expect(calls.filter(notPolling)).toEqual(['file.write', 'file.sync']);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    calls.length = 0;
    await lease.append([step('c')], 2);
    // The renewal: the lock's mtime is set through its handle, then its name is checked.
    expect(calls.filter(notPolling)).toEqual(['identityOf', 'file.write', 'file.sync']);
    await lease.release();
  });

  it('refuses a claim that is not { holder, ms } with config.invalid_value; another holder is run.claimed, the same one fences its earlier lease off', async () => {
    const journal = fileJournal({ dir });
    for (const bad of [undefined, {}, { holder: '', ms: 10 }, { holder: 'x'.repeat(201), ms: 10 }, { holder: 'a', ms: 0 }, { holder: 'a', ms: 1.5 }, { holder: 'a', ms: 2 ** 31 }, { holder: 'a', ms: Number.NaN }, { holder: 7, ms: 10 }]) {
      expect(await codeOf(journal.claim!('r1', bad as never))).toBe('config.invalid_value');
    }
    const first = await journal.claim!('r1', { holder: 'a', ms: MS });
    expect(await codeOf(journal.claim!('r1', { holder: 'b', ms: MS }))).toBe('run.claimed');
    const second = await journal.claim!('r1', { holder: 'a', ms: MS });
    expect(await codeOf(first.append([step('old')], 0))).toBe('run.lease_lost');
    await second.append([step('new')], 0);
    await first.release();
    expect(await codeOf(fileJournal({ dir }).claim!('r1', { holder: 'b', ms: MS }))).toBe('run.claimed');
    await second.release();
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('new')]);
  });

  it('a lease not renewed within ms is lost though nobody took the run: run.lease_lost, and its release frees the run', async () => {
    const journal = fileJournal({ dir });
    // Long enough for the first append on a loaded gate (150 ms once was not).
    const lease = await journal.claim!('r1', { holder: 'a', ms: 1_000 });
    await lease.append([step('a')], 0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await codeOf(lease.append([step('late')], 1))).toBe('run.lease_lost');
    expect(await codeOf(lease.renew())).toBe('run.lease_lost');
    await lease.release();
    const next = await fileJournal({ dir }).claim!('r1', { holder: 'b', ms: MS });
    expect(await next.load()).toEqual([step('a')]);
    await next.release();
  });
});

describe('fileJournal: the inbox', () => {
  /** A request as the protocol writes it, left taken by a server that died; its requester `requester`. Resolves with its answer. */
  const leftTaken = async (request: object, requester: number): Promise<string | undefined> => {
    const name = `r1.jsonl.req.${String(Date.now()).padStart(15, '0')}.${requester}.${crypto.randomUUID()}`;
    writeFileSync(path.join(dir, `${name}.taken`), JSON.stringify(request));
    writeFileSync(path.join(dir, 'r1.jsonl.bell'), '');
    await waitFor(() => readdirSync(dir).every((n) => !n.endsWith('.taken')));
    try {
      return readFileSync(path.join(dir, `${name}.answer`), 'utf8');
    } catch {
      return undefined;
    }
  };

  it('a request a dead server took is applied once: ok and not again when its entries landed, appended when they did not', async () => {
    await fileJournal({ dir }).append('r1', [step('a'), step('landed')], 0);
    const lease = await fileJournal({ dir }).claim!('r1', { holder: 'engine-1', ms: MS });
    expect(await leftTaken({ expectedLength: 1, entries: [step('landed')] }, process.pid)).toBe('ok');
    expect(await lease.load()).toEqual([step('a'), step('landed')]);
    expect(await leftTaken({ expectedLength: 2, entries: [step('not yet')] }, process.pid)).toBe('ok');
    expect(await lease.load()).toEqual([step('a'), step('landed'), step('not yet')]);
    expect(await leftTaken({ expectedLength: 2, entries: [step('too late')] }, process.pid)).toBe('conflict 3');
    // A requester that is gone gets no answer file, which nobody would remove.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(await leftTaken({ expectedLength: 3, entries: [step('orphan')] }, gone)).toBeUndefined();
    expect(await lease.load()).toEqual([step('a'), step('landed'), step('not yet'), step('orphan')]);
    await lease.release();
    expect(readdirSync(dir).filter((n) => n.includes('.req.')).length).toBe(3);
  });

  it('a request its holder cannot read (too large, or not the protocol\'s) is journal.unavailable for its writer, nothing written', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    const lease = await fileJournal({ dir }).claim!('r1', { holder: 'holder', ms: MS });
    // A writer whose request arrives unreadable.
    const garbling: JournalFs = { ...nodeJournalFs, createExclusive: (at, text) => nodeJournalFs.createExclusive(at, at.includes('.req.') && !at.includes('.answer') ? 'not a request' : text) };
    const error = await createFileJournal({ dir }, garbling).append('r1', [step('b')], 1).then(() => undefined, (e: Error & { code?: string }) => e);
    expect(error).toMatchObject({ code: 'journal.unavailable', message: expect.stringContaining('could not read this append') });
    expect(await lease.load()).toEqual([step('a')]);
    await lease.release();
  });

  it('a request no live holder takes is withdrawn after 5 s: journal.unavailable, nothing written, nothing left behind', async () => {
    await fileJournal({ dir }).append('r1', [step('a')], 0);
    // A holder that renews but never hears the bell.
    const deaf = createFileJournal({ dir }, { ...nodeJournalFs, presentSync: () => false });
    const lease = await deaf.claim!('r1', { holder: 'deaf', ms: 1_500 });
    const renewing = setInterval(() => void lease.renew(), 500);
    try {
      const started = performance.now();
      const error = await fileJournal({ dir }).append('r1', [step('b')], 1).then(() => undefined, (e: Error & { code?: string }) => e);
      const waited = performance.now() - started;
      expect(error).toMatchObject({ code: 'journal.unavailable', message: expect.stringContaining('did not take this append within 5000 ms') });
      expect(waited).toBeGreaterThanOrEqual(5_000);
      expect(waited).toBeLessThan(6_500);
      expect(await lease.load()).toEqual([step('a')]);
      expect(readdirSync(dir).filter((n) => n.includes('.req.'))).toEqual([]);
    } finally {
      clearInterval(renewing);
      await lease.release();
    }
  }, 20_000);
});

describe('fileJournal: runs()', () => {
  it('lists the run files of the directory, sorted, and nothing else; [] for a directory not made yet', async () => {
    expect(await fileJournal({ dir: path.join(dir, 'not-yet') }).runs!()).toEqual([]);
    const journal = fileJournal({ dir });
    for (const id of ['zeta', 'alpha', 'mid-1']) await journal.append(id, [step('a')], 0);
    const lease = await journal.claim!('held', { holder: 'a', ms: MS });
    await lease.append([step('a')], 0);
    for (const stray of ['alpha.jsonl.lock.1.x', 'alpha.jsonl.req.1.x', 'alpha.jsonl.bell', '.hidden.jsonl', 'notes.txt', 'bad id.jsonl']) writeFileSync(path.join(dir, stray), '');
    expect(await journal.runs!()).toEqual(['alpha', 'held', 'mid-1', 'zeta']);
    await lease.release();
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (const started = Date.now(); !check(); ) {
    if (Date.now() - started > 5_000) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
