/**
 * fileJournal at the disk floor (issue 25 item 3): its leased path against raw file system
 * calls on the same disk, in the same run, interleaved round by round.
 *   append        one append under a lease (a model turn's entry, ~0.7 KB) vs one raw
 *                 positional write + fdatasync of the same bytes on an open file
 *   durable turn  the two appends of a turn (the turn, then its tool result) vs one raw write
 *   100 at once   100 runs, each under its lease, appending at the same time, per append, vs
 *                 raw per-file write + fsync one after another (the target), and vs the same
 *                 raw calls issued all at once (a bound: see below)
 *   resume        of a suspended 100-turn run by a new journal: claim, load the run, the
 *                 appends the engine's own resume made (recorded from a real one: the released
 *                 tool result; the model's last answer with the agent's end; the run's end),
 *                 release; vs one raw write + fdatasync, and a bound: reading and parsing the
 *                 file and as many raw appends, the least a resume
 *                 that must read the run can cost (the lease also freezes what it parsed, which
 *                 spares the engine its own frozen copy)
 * The 100-at-once bound: issued together, raw fsyncs of different files already share the file
 * system's journal commit (ext4's jbd2 joins concurrent fsyncs), so the leased appends, which
 * are exactly those calls, cannot beat that floor by syncing less; only one file holding all
 * runs' appends (a segment, one fdatasync for many runs) could, at the price of a second copy
 * of every append and a recovery pass before any read. Not built; the row shows the gap.
 */
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DIR_MARKER } from '../src/node/journal-append.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { library } from './library.js';
import { measured, printTargets, type Row } from './report.js';

type JournalEntry = import('../src/node/index.js').JournalEntry;
type JournalLease = import('../src/core/journal/store.js').JournalLease;

const APPENDS = 20;
const RUNS = 100;
const LEASE = { holder: 'bench', ms: 600_000 };
const RUN = 'suspended';

export async function benchJournalFloor(options: { warmup: number; iterations: number }, entries: { turn: JournalEntry; tool: JournalEntry; suspended: readonly JournalEntry[]; tail: readonly (readonly JournalEntry[])[] }): Promise<Row[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'rulvar-bench-floor-'));
  try {
    const bytes = new TextEncoder().encode(`${JSON.stringify(entries.turn)}\n`);
    const raw = await rawFile(path.join(root, 'raw'));
    const journal = library.fileJournal({ dir: path.join(root, 'leased') });
    const single = await counted(await journal.claim!('single', LEASE));
    const turned = await counted(await journal.claim!('turned', LEASE));
    const many = await Promise.all(Array.from({ length: RUNS }, async (_, i) => counted(await journal.claim!(`run-${i}`, LEASE))));
    await mkdir(path.join(root, 'raw-many'));
    const rawMany = await Promise.all(Array.from({ length: RUNS }, (_, i) => rawFile(path.join(root, 'raw-many', `f${i}`))));
    const fixture = entries.suspended.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    const boundFile = path.join(root, 'bound.jsonl');
    await writeFile(boundFile, fixture);
    let resumeDir = '';
    let sample = 0;

    const variants: Variant[] = [
      { name: 'raw: positional write + fdatasync', run: async () => { for (let i = 0; i < APPENDS; i += 1) await raw.append(bytes, 'datasync'); } },
      { name: 'fileJournal: append under a lease', run: async () => { for (let i = 0; i < APPENDS; i += 1) await single.append([entries.turn]); } },
      { name: 'fileJournal: a durable turn (two appends)', run: async () => { for (let i = 0; i < APPENDS; i += 1) { await turned.append([entries.turn]); await turned.append([entries.tool]); } } },
      { name: 'raw: 100 files, write + fsync one after another', run: async () => { for (const file of rawMany) await file.append(bytes, 'fsync'); } },
      { name: 'raw: 100 files, write + fsync all at once', run: async () => { await Promise.all(rawMany.map((file) => file.append(bytes, 'fsync'))); } },
      { name: 'fileJournal: 100 leased runs appending at once', run: async () => { await Promise.all(many.map((lease) => lease.append([entries.turn]))); } },
      {
        name: 'fileJournal: resume of a suspended 100-turn run',
        setup: async () => {
          resumeDir = await journalDir(path.join(root, `resume-${(sample += 1)}`));
          await writeFile(path.join(resumeDir, `${RUN}.jsonl`), fixture);
        },
        run: async () => {
          const lease = await library.fileJournal({ dir: resumeDir }).claim!(RUN, LEASE);
          let length = (await lease.load()).length;
          for (const batch of entries.tail) {
            await lease.append([...batch], length);
            length += batch.length;
          }
          await lease.release();
        },
      },
      {
        name: 'bound: read and parse the run, as many raw writes + fdatasync',
        run: async () => {
          for (const line of (await readFile(boundFile, 'utf8')).split('\n')) if (line !== '') JSON.parse(line);
          for (const batch of entries.tail) await raw.append(new TextEncoder().encode(`${JSON.stringify(batch)}\n`), 'datasync');
        },
      },
    ];
    const stats = await compare(variants, options);
    printTable(`journal: fileJournal at the disk floor (${APPENDS} appends per sample; 100 runs: one append each per sample)`, stats, variants[0]!.name);
    const at = (i: number) => median(stats, variants[i]!.name);
    const rawAppend = at(0) / APPENDS;
    const rows = [
      measured({ name: 'fileJournal: append under a lease', comparison: '`fileJournal` append under a lease, vs a raw positional write + `fdatasync` on the same disk', floorLabel: 'raw write + fdatasync', floor: rawAppend, values: [at(1) / APPENDS], target: 1.3 }),
      measured({ name: 'fileJournal: durable turn', comparison: 'a durable turn on `fileJournal` (the turn, then its tool result: two appends), vs one raw write + `fdatasync`', floor: rawAppend, values: [at(2) / APPENDS], target: 3 }),
      measured({ name: 'fileJournal: resume of a suspended 100-turn run', comparison: `resume of a suspended 100-turn run by a new \`fileJournal\` (claim, load, the engine's ${entries.tail.length} appends, release), vs one raw write + \`fdatasync\``, floor: rawAppend, values: [at(6)], target: 5 }),
      measured({ name: 'bound: read, parse, as many raw appends', comparison: `the least such a resume can cost: read and parse the run's file, then ${entries.tail.length} raw writes + \`fdatasync\``, floor: rawAppend, values: [at(7)], note: '(bound)' }),
      // Rates: half the time per append is twice the rate.
      measured({ name: 'fileJournal: 100 runs appending at once', comparison: '100 leased runs appending at once, time per append, vs raw per-file write + `fsync` one after another (≤ 0.5× is ≥ 2× the rate)', floorLabel: 'raw per-file write + fsync', floor: at(3) / RUNS, values: [at(5) / RUNS], target: 0.5 }),
      measured({ name: 'fileJournal: 100 runs appending at once, vs raw all at once', comparison: 'the same, vs the raw calls issued all at once (they already share the file system\'s journal commit; only a shared segment could sync less)', floorLabel: 'raw, all at once', floor: at(4) / RUNS, values: [at(5) / RUNS], note: '(bound: no segment)' }),
    ];
    printTargets(rows);
    await Promise.all([single, turned, ...many].map((lease) => lease.release()));
    await Promise.all([raw, ...rawMany].map((file) => file.close()));
    return rows;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * A directory as a journal leaves it: with the marker saying its own name is durable. A run to
 * resume lives in a directory its journal made; a bare mkdir would make the timed resume
 * sync the parent directories first, which only a journal's first use ever does.
 */
export async function journalDir(dir: string): Promise<string> {
  await mkdir(dir);
  await writeFile(path.join(dir, DIR_MARKER), '');
  return dir;
}

/** A file kept open, appended to at its end by raw calls. */
async function rawFile(at: string) {
  const handle = await open(at, 'w+');
  let offset = 0;
  return {
    async append(bytes: Uint8Array, sync: 'datasync' | 'fsync') {
      await handle.write(bytes, 0, bytes.byteLength, offset);
      offset += bytes.byteLength;
      await (sync === 'datasync' ? handle.datasync() : handle.sync());
    },
    close: () => handle.close(),
  };
}

/** A lease that keeps count of its run's entries, so each append lands at the right length. */
async function counted(lease: JournalLease) {
  let length = (await lease.load()).length;
  return {
    async append(batch: JournalEntry[]) {
      await lease.append(batch, length);
      length += batch.length;
    },
    release: () => lease.release(),
  };
}
