/**
 * fileJournal held to the JournalStore contract every store keeps (test/core/journal-contract.suite.ts):
 * each case over a new directory, the twin another fileJournal over the same directory (what
 * another process sees), the snapshot every run file's bytes.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalContractSuite } from '../core/journal-contract.suite.js';
import { fileJournal } from '../../src/node/index.js';

/** Every run file and what it holds; locks and other passing files are not the journal. */
function runFiles(dir: string): Map<string, Uint8Array> {
  const names = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();
  return new Map(names.map((name) => [name, new Uint8Array(readFileSync(path.join(dir, name)))]));
}

journalContractSuite({ describe, it, expect }, 'fileJournal', {
  async open() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-contract-'));
    return {
      store: fileJournal({ dir }),
      twin: () => fileJournal({ dir }),
      snapshot: () => runFiles(dir),
      close: () => rm(dir, { recursive: true, force: true }),
    };
  },
  // 1.5 s, not the suite's 400 ms: the Node 22/24 lane runs this niced beside the main lane,
  // where a starved inbox round trip once took longer than a 400 ms lease (run.lease_lost).
}, { lease: true, runs: true, leaseMs: 1_500 });
