/**
 * Torn tails of every length (issue 24): a crash can leave any prefix of an append at the end
 * of a run file, shorter or longer than the append that comes next, up to a whole batch of
 * lines' worth. Each is ignored on load and cut off by the next append, so the file afterwards
 * is exactly what it would be had the crash never happened: an append that only wrote over
 * the tail (without cutting it) leaves the rest of a longer tail behind and fails here.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { createFileJournal } from '../../src/node/file-journal.js';
import { batchOf } from '../../src/node/journal-encode.js';
import { nodeJournalFs, type JournalFs } from '../../src/node/journal-fs.js';

const step = (name: string, value: unknown = name): JournalEntry => ({ v: 1, type: 'step', name, value });
const lineOf = (entries: JournalEntry[]) => Buffer.from(`${JSON.stringify(entries.length === 1 ? entries[0] : entries)}\n`);

/** The real file system without fsync: these loops test where an append lands, not that it is flushed. */
const noSync: JournalFs = {
  ...nodeJournalFs,
  async openOrCreate(target, create) {
    const opened = await nodeJournalFs.openOrCreate(target, create);
    return { ...opened, file: { ...opened.file, sync: async () => undefined } };
  },
  syncDir: async () => undefined,
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-tails-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));
const fileOf = (runId: string) => path.join(dir, `${runId}.jsonl`);

/**
 * Every length up to twice the next append (shorter, as long, longer), then every 13th to the
 * end of the torn append and its last bytes: all of a line's prefixes, a batch's at a stride.
 */
function cutsOf(length: number, nextLength: number): number[] {
  const cuts: number[] = [];
  for (let cut = 1; cut < length; cut += cut < 2 * nextLength ? 1 : 13) cuts.push(cut);
  for (let cut = Math.max(1, length - 3); cut < length; cut += 1) if (!cuts.includes(cut)) cuts.push(cut);
  return cuts;
}

describe('fileJournal: torn tails of every length', () => {
  const head = [step('a'), step('b')];
  const next = [step('c')];
  /** What a crash mid-append can leave: prefixes of the lines and batches the journal writes. */
  const appends: [string, Buffer][] = [
    ['a one-entry line', lineOf([step('torn', 'x'.repeat(30))])],
    ['a batch line three times the next one', lineOf([step('t1', 'y'.repeat(40)), step('t2', 'é'.repeat(20)), step('t3')])],
    ['a batch of lines', Buffer.from(batchOf([step('b1', 'z'.repeat(300)), step('b2', '€'.repeat(100)), step('b3')].map((e) => JSON.stringify(e))).bytes)],
  ];

  for (const [what, torn] of appends) {
    it(`of ${what} (${torn.byteLength} bytes against a next append of ${lineOf(next).byteLength}): every prefix is ignored, then cut off`, async () => {
      const base = Buffer.concat([lineOf(head)]);
      const expected = Buffer.concat([base, lineOf(next)]);
      for (const cut of cutsOf(torn.byteLength, lineOf(next).byteLength)) {
        // One journal that wrote the head (it remembers the end) and one that never saw the file.
        for (const fresh of [false, true]) {
          writeFileSync(fileOf('r1'), '');
          const writer = createFileJournal({ dir }, noSync);
          await writer.append('r1', head, 0);
          appendFileSync(fileOf('r1'), torn.subarray(0, cut));
          const appender = fresh ? createFileJournal({ dir }, noSync) : writer;
          expect(await createFileJournal({ dir }, noSync).load('r1')).toEqual(head);
          await appender.append('r1', next, 2);
          const bytes = readFileSync(fileOf('r1'));
          if (!bytes.equals(expected)) throw new Error(`a torn tail of ${cut} bytes (${fresh ? 'fresh journal' : 'the writer'}) left ${JSON.stringify(bytes.subarray(base.byteLength).toString('latin1'))}`);
        }
      }
    }, 60_000);
  }

  it('a torn tail that is not JSON but ends in a newline, longer than the next append, is cut whole', async () => {
    const writer = createFileJournal({ dir }, noSync);
    await writer.append('r1', head, 0);
    appendFileSync(fileOf('r1'), Buffer.from(`{"v":1,"type":"step","name":"${'q'.repeat(200)}\u0000\u0000\n`));
    await writer.append('r1', next, 2);
    expect(readFileSync(fileOf('r1'))).toEqual(Buffer.concat([lineOf(head), lineOf(next)]));
  });
});
