/**
 * fileJournal in one process: how it lays a run out (a line per append, its directory made
 * on the first), a torn tail from a crash (ignored, then cut off by the next append),
 * corruption anywhere else (refused by line, never skipped), and run ids that could reach
 * outside its directory (refused before any file is touched). What every store keeps (round
 * trips, conflicts, races) is file-journal-contract.test.ts; failures of the disk, locks and
 * other processes are file-journal-failures and -processes; big batches -batches.
 */
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { fileJournal as edgeFileJournal } from '../../src/edge/index.js';
import { fileJournal } from '../../src/node/index.js';

const step = (name: string, value: unknown = name): JournalEntry => ({ v: 1, type: 'step', name, value });
const turn: JournalEntry = {
  v: 1,
  type: 'turn',
  agent: 'a1',
  turn: 0,
  response: { text: 'naïve ✓ "quoted"\nline two \u2028', toolCalls: [{ id: 'c1', name: 'pay', input: { amount: 5, nested: [null, true, -1.5] } }], stopReason: 'tool_calls' },
};

let root: string;
let dir: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'rulvar-journal-'));
  dir = path.join(root, 'journals', 'deep');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const fileOf = (runId: string) => path.join(dir, `${runId}.jsonl`);
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: { code?: string }) => error.code);
async function messageOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: Error) => e);
  return error === undefined ? 'resolved' : `${(error as { code?: string }).code}: ${error.message}`;
}

describe('fileJournal: what it keeps', () => {
  it('creates its directory on the first append; loading an unknown run creates nothing', async () => {
    const journal = fileJournal({ dir });
    expect(await journal.load('never-written')).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await journal.append('r1', [step('a')], 0);
    expect(readdirSync(dir).sort()).toEqual(['.rulvar-dir', 'r1.jsonl']);
  });

  it('writes one line per append, so a batch survives whole or not at all', async () => {
    const journal = fileJournal({ dir });
    await journal.append('r1', [step('a')], 0);
    await journal.append('r1', [step('b'), step('c'), turn], 1);
    const text = readFileSync(fileOf('r1'), 'utf8');
    expect(text.split('\n')).toHaveLength(3);
    // A crash that kept only the start of the batch's line: none of the batch is loaded.
    writeFileSync(fileOf('r1'), text.slice(0, text.length - 10));
    expect(await fileJournal({ dir }).load('r1')).toEqual([step('a')]);
  });

  it('takes one instance\'s appends in the order they were made, without the caller waiting for each', async () => {
    const journal = fileJournal({ dir });
    const names = Array.from({ length: 10 }, (_, i) => `in order ${i}`);
    await Promise.all(names.map((name, i) => journal.append('r1', [step(name)], i)));
    expect(await journal.load('r1')).toEqual(names.map((name) => step(name)));
  });
});

describe('fileJournal: torn tails and corruption', () => {
  for (const [what, tail] of [
    ['a partial line with no newline', Buffer.from('{"v":1,"type":"step","na')],
    ['a last line that is not JSON', Buffer.from('{"v":1,"type":"st\u0000\u0000\n')],
    ['a last line that is not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x0a])],
  ] as const) {
    it(`ignores a torn tail (${what}), and the next append replaces it`, async () => {
      const journal = fileJournal({ dir });
      await journal.append('r1', [step('a'), step('b')], 0);
      appendFileSync(fileOf('r1'), tail);
      expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b')]);
      // The instance that remembers the end it wrote must cut the tail too, not append past it.
      await journal.append('r1', [step('c')], 2);
      expect(await fileJournal({ dir }).load('r1')).toEqual([step('a'), step('b'), step('c')]);
      const lines = readFileSync(fileOf('r1'), 'utf8').split('\n');
      expect(lines.at(-1)).toBe('');
      for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line) as unknown).not.toThrow();
    });
  }

  for (const [what, line] of [
    ['not JSON', '{"v":1,"type":"step",'],
    ['JSON but not an entry', '{"type":"step"}'],
    ['an empty list', '[]'],
    ['a list holding a non-entry', '[{"v":1,"type":"step"},42]'],
  ] as const) {
    it(`refuses a line in the middle that is ${what}: journal.corrupt naming the run and the line`, async () => {
      const good = JSON.stringify(step('a'));
      writeFileSync(path.join(await mkdirs(dir), 'r1.jsonl'), `${good}\n${good}\n${line}\n${good}\n`);
      const journal = fileJournal({ dir });
      const message = await messageOf(journal.load('r1'));
      expect(message).toMatch(/^journal\.corrupt: run "r1": line 3 of its journal /);
      expect(message).not.toContain(line);
      expect(await codeOf(journal.append('r1', [step('b')], 4))).toBe('journal.corrupt');
    });
  }

  it('refuses a line over 64 MiB rather than buffering it', async () => {
    writeFileSync(path.join(await mkdirs(dir), 'r1.jsonl'), `${JSON.stringify(step('a'))}\n${'x'.repeat(64 * 1024 * 1024 + 1)}`);
    expect(await messageOf(fileJournal({ dir }).load('r1'))).toMatch(/^journal\.corrupt: run "r1": line 2 of its journal is over 67108864 bytes/);
  });
});

describe('fileJournal: run ids and entries it refuses', () => {
  const hostile = ['../x', '../../etc/passwd', 'a/b', 'a\\b', '.', '..', '.hidden', 'nul\u0000byte', 'tab\there', 'new\nline', 'x'.repeat(200), '', 'C:evil'];
  for (const runId of hostile) {
    it(`refuses run id ${JSON.stringify(runId).slice(0, 40)} with config.invalid_value, touching nothing`, async () => {
      const journal = fileJournal({ dir });
      expect(await codeOf(journal.append(runId, [step('a')], 0))).toBe('config.invalid_value');
      expect(await codeOf(journal.load(runId))).toBe('config.invalid_value');
      expect(readdirSync(root)).toEqual([]);
      expect(existsSync(path.join(os.tmpdir(), 'x.jsonl'))).toBe(false);
    });
  }

  it('takes UUIDs and ids of letters, digits, dots, dashes and underscores', async () => {
    const journal = fileJournal({ dir });
    for (const runId of [crypto.randomUUID(), 'order-42', 'nightly_2024.1', 'A', 'x'.repeat(128), 'ends.']) {
      await journal.append(runId, [step(runId)], 0);
      expect(await journal.load(runId)).toEqual([step(runId)]);
    }
  });

  it('refuses what it could not read back, before writing: non-entries, non-JSON, a missing dir', async () => {
    const journal = fileJournal({ dir });
    expect(await codeOf(journal.append('r1', [{ type: 'step' } as unknown as JournalEntry], 0))).toBe('config.invalid_value');
    expect(await codeOf(journal.append('r1', [step('a', { big: 1n })], 0))).toBe('config.invalid_value');
    expect(await codeOf(journal.append('r1', 'nope' as unknown as JournalEntry[], 0))).toBe('config.invalid_value');
    expect(existsSync(dir)).toBe(false);
    expect(() => fileJournal({ dir: '' })).toThrow(expect.objectContaining({ code: 'config.invalid_value' }));
  });

  it('is refused on the edge entry with journal.unavailable, at call time', () => {
    expect(() => edgeFileJournal({ dir })).toThrow(expect.objectContaining({ code: 'journal.unavailable', message: expect.stringContaining('durableObjectJournal') }));
  });
});

async function mkdirs(target: string): Promise<string> {
  await mkdir(target, { recursive: true });
  return target;
}
