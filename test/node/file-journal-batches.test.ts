/**
 * fileJournal takes any append the engine can make (issue 23 item 4): past the 64 MiB a line
 * may hold, an append is a batch of lines behind a header (journal-encode.ts), written in one
 * write and counted only once all of it is there. Seven 10 MB tool results land as one batch;
 * an entry larger than a line lands as pieces; a batch damaged at the end of the file is a
 * torn tail, one damaged before other lines journal.corrupt naming its header's line. A batch
 * cut at every length: file-journal-tails.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { fileJournal } from '../../src/node/index.js';
import { batchOf } from '../../src/node/journal-encode.js';

const MIB = 1024 * 1024;
const step = (name: string, value: unknown = name): JournalEntry => ({ v: 1, type: 'step', name, value });
const toolResult = (index: number, output: string): JournalEntry => ({
  v: 1,
  type: 'tool',
  agent: 'a1',
  turn: 0,
  index,
  result: { callId: `c${index}`, toolName: 'fetch', isError: false, output },
  audit: { verdict: 'allow', layer: 'default', advisory: [] },
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-batches-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const fileOf = (runId: string) => path.join(dir, `${runId}.jsonl`);
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code);
/** Each line's length in bytes, its newline left out. */
function lineLengths(bytes: Buffer): number[] {
  const lengths: number[] = [];
  for (let start = 0, lf = bytes.indexOf(0x0a); lf !== -1; start = lf + 1, lf = bytes.indexOf(0x0a, start)) lengths.push(lf - start);
  return lengths;
}
/**
 * Only a guard against a hang: these appends are 70 MB, and on a gate machine running both
 * lanes at once one of them once took 61 s (3.5 s alone).
 */
const HEAVY_MS = 180_000;

describe('fileJournal: appends larger than a line', () => {
  it('seven 10 MB tool results are one 70 MB append: a batch of lines, loaded back whole by any journal', async () => {
    const results = Array.from({ length: 7 }, (_, i) => toolResult(i, String.fromCharCode(97 + i).repeat(10 * MIB)));
    const journal = fileJournal({ dir });
    await journal.append('r1', [step('before')], 0);
    await journal.append('r1', results, 1);
    await journal.append('r1', [step('after')], 8);
    const bytes = readFileSync(fileOf('r1'));
    expect(bytes.byteLength).toBeGreaterThan(70 * 1000 * 1000);
    // The step, the header and one line per result, then the step after.
    expect(lineLengths(bytes)).toHaveLength(1 + 1 + 7 + 1);
    for (const loaded of [await journal.load('r1'), await fileJournal({ dir }).load('r1')]) {
      expect(loaded).toHaveLength(9);
      expect(loaded.slice(1, 8)).toEqual(results);
      expect(loaded[8]).toEqual(step('after'));
    }
  }, HEAVY_MS);

  it('an entry larger than a line is written as pieces of its JSON, and joined on load', async () => {
    // Over 64 MiB of JSON in one entry, with characters of every UTF-8 width.
    const value = `${'x'.repeat(40 * MIB)}"\\${'é'.repeat(6 * MIB)}${'€'.repeat(4 * MIB)}${'😀'.repeat(MIB)}`;
    const journal = fileJournal({ dir });
    await journal.append('r1', [step('huge', value)], 0);
    const lengths = lineLengths(readFileSync(fileOf('r1')));
    expect(lengths.length).toBeGreaterThan(2);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(64 * MIB);
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('huge', value)]);
  }, HEAVY_MS);
});

describe('fileJournal: a batch of lines cut or damaged', () => {
  /** A small batch in the written form: the reader takes any size; only the writer waits for 64 MiB. */
  const batch = (entries: JournalEntry[]) => Buffer.from(batchOf(entries.map((e) => JSON.stringify(e))).bytes);
  const head = [step('a'), step('b')];
  const written = async () => {
    await fileJournal({ dir }).append('r1', head, 0);
    return readFileSync(fileOf('r1'));
  };

  const damages: [string, (tail: Buffer) => Buffer][] = [
    ['zeros over a line inside it', (tail) => Buffer.concat([tail.subarray(0, tail.indexOf('\n') + 3), Buffer.alloc(40), tail.subarray(tail.indexOf('\n') + 43)])],
    ['a header counting more entries than its lines hold', (tail) => Buffer.from(tail.toString('utf8').replace('"entries":3', '"entries":4'))],
    ['a header counting more bytes than its lines take', (tail) => Buffer.from(tail.toString('utf8').replace(/"bytes":(\d+)/, (_, n: string) => `"bytes":${Number(n) + 10}`))],
    ['pieces out of order', () => pieces([1, 0])],
    ['a piece missing', () => pieces([0, 2])],
  ];
  /** A batch of one entry as three pieces, in the order given. */
  function pieces(order: number[]): Buffer {
    const text = JSON.stringify(step('pieced', 'y'.repeat(90)));
    const third = Math.ceil(text.length / 3);
    const lines = order.map((piece) => `${JSON.stringify({ piece, pieces: 3, text: text.slice(piece * third, (piece + 1) * third) })}\n`).join('');
    return Buffer.from(`${JSON.stringify({ batch: { bytes: Buffer.byteLength(lines), entries: 1 } })}\n${lines}`);
  }

  for (const [what, damage] of damages) {
    it(`${what}: torn at the end of the file, journal.corrupt naming the header line when a line follows`, async () => {
      const before = await written();
      const tail = damage(batch([step('c'), step('d', 'x'.repeat(200)), step('e')]));
      writeFileSync(fileOf('r1'), Buffer.concat([before, tail]));
      expect(await fileJournal({ dir }).load('r1')).toEqual(head);
      writeFileSync(fileOf('r1'), Buffer.concat([before, tail, Buffer.from(`${JSON.stringify(step('later'))}\n`)]));
      const error = await fileJournal({ dir }).load('r1').then(() => undefined, (e: Error & { code?: string }) => e);
      expect(error).toMatchObject({ code: 'journal.corrupt' });
      expect(error?.message).toMatch(/^run "r1": line 2 of its journal begins a batch/);
      expect(await codeOf(fileJournal({ dir }).append('r1', [step('x')], 2))).toBe('journal.corrupt');
    });
  }

  it('pieces in order join into their entry; a piece or header outside a batch is journal.corrupt', async () => {
    const before = await written();
    writeFileSync(fileOf('r1'), Buffer.concat([before, pieces([0, 1, 2])]));
    expect(await fileJournal({ dir }).load('r1')).toEqual([...head, step('pieced', 'y'.repeat(90))]);
    const stray = pieces([0, 1, 2]).toString('utf8').split('\n')[1]!;
    writeFileSync(fileOf('r1'), Buffer.concat([before, Buffer.from(`${stray}\n${JSON.stringify(step('later'))}\n`)]));
    expect(await codeOf(fileJournal({ dir }).load('r1'))).toBe('journal.corrupt');
  });
});
