/**
 * The JournalStore contract (src/core/journal/store.ts, spec/runtime.md "Journals" and "One
 * writer per run: leases"), written once and run against every store: memory and the Durable
 * Object journal over its storage fake in every runtime (suite.ts), fileJournal in Node
 * (test/node/file-journal-contract.test.ts), the Durable Object journal in a real object under
 * workerd, and Postgres. A store is handed over as a factory of fresh, isolated backings and a
 * capabilities object, so a new store only has to say how to open one:
 *
 *   journalContractSuite(h, 'myJournal', { open: () => ({ store, twin: () => other }) }, { lease: true });
 *
 * What it holds every store to: an unknown run is []; entries come back in order and equal
 * to what was appended, whatever their JSON; an append at a stale expectedLength is
 * journal.conflict and writes nothing; a batch lands whole or not at all; any batch the engine
 * can produce is taken (seven 10 MB tool results at once), and an engine run making such a
 * batch suspends and resumes on it (journal-contract-engine.ts); of writers racing at one length
 * exactly one wins; and, for a store with `claim`, the lease (journal-contract-lease.ts).
 */
import type { JournalEntry, JournalStore } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';
import { journalEngineContract } from './journal-contract-engine.js';
import { journalLeaseContract } from './journal-contract-lease.js';

/** What the suite needs of a test runner: vitest's describe, it and expect, or the workerd collector. */
export type ContractHarness = Pick<SuiteHarness, 'describe' | 'it' | 'expect'>;

/** The store under test: how to open it over a new, empty backing. */
export interface StoreUnderTest {
  open(): OpenedStore | Promise<OpenedStore>;
}

export interface OpenedStore {
  readonly store: JournalStore;
  /** Another store over the same backing: another process's or request's view (the store itself where there is only one). */
  twin(): JournalStore;
  /** Everything the backing holds, comparable with toEqual: proves that a refused write wrote nothing. */
  snapshot?(): unknown;
  /** Releases what `open` made (a directory, a connection); called after each case. */
  close?(): unknown;
}

export interface StoreCapabilities {
  /** The store has `claim`: the lease cases run (and a store that has it must say so). */
  readonly lease?: boolean;
  /** The store has `runs`. */
  readonly runs?: boolean;
  /** How long the leases of the lease cases last (ms); long enough to beat the store's own latency. Default 400. */
  readonly leaseMs?: number;
  /** Whether the 70 MB batch runs here (memory-starved runtimes may skip it). Default true. */
  readonly bigBatches?: boolean;
}

const MIB = 1024 * 1024;
const step = (n: number, value: unknown = n): JournalEntry => ({ v: 1, type: 'step', name: `s${n}`, value });
const steps = (from: number, count: number): JournalEntry[] => Array.from({ length: count }, (_, i) => step(from + i));
/** Values JSON holds that stores have got wrong before: escapes, line separators, every UTF-8 width, deep nesting. */
const AWKWARD = { text: 'naïve ✓ "quoted" \\ back\nline \u2028 \u2029 \t é € 😀', numbers: [0, -1.5, 1e21, 2 ** 53 - 1], empty: { o: {}, a: [], s: '' }, deep: { a: [{ b: [null, true, false] }] } };

export function journalContractSuite(h: ContractHarness, name: string, subject: StoreUnderTest, capabilities: StoreCapabilities = {}): void {
  const expect = h.expect;
  /** Runs `body` over a freshly opened store, closing it after. */
  const withStore = (body: (opened: OpenedStore) => Promise<void>) => async () => {
    const opened = await subject.open();
    try {
      await body(opened);
    } finally {
      await opened.close?.();
    }
  };
  const codeOf = async (work: () => unknown) => (caught(work) as Promise<{ code?: unknown }>).then((e) => e.code);
  const snapshot = async (opened: OpenedStore) => (opened.snapshot === undefined ? undefined : structuredClone(await opened.snapshot()));

  h.describe(`JournalStore contract: ${name}`, () => {
    h.it('says what it has: claim exactly when the lease cases are asked for, runs likewise', withStore(async ({ store }) => {
      expect(typeof store.claim === 'function').toBe(capabilities.lease === true);
      expect(typeof store.runs === 'function').toBe(capabilities.runs === true);
    }));

    h.it('a run never written loads as [], with other runs stored', withStore(async ({ store, twin }) => {
      expect(await store.load('never-written')).toEqual([]);
      await store.append('known', steps(0, 2), 0);
      expect(await store.load('unknown')).toEqual([]);
      expect(await twin().load('unknown')).toEqual([]);
    }));

    h.it('appends load back in order, equal to what was appended, through this store and its twin', withStore(async ({ store, twin }) => {
      const frozen = Object.freeze({ v: 1, type: 'step', name: 'frozen', value: Object.freeze({ list: Object.freeze([1, 2]) }) }) as JournalEntry;
      await store.append('r', [step(0, AWKWARD)], 0);
      await store.append('r', [frozen, step(2, null), step(3, 'x'.repeat(100_000))], 1);
      await twin().append('r', [step(4)], 4);
      const expected = [step(0, AWKWARD), frozen, step(2, null), step(3, 'x'.repeat(100_000)), step(4)];
      expect(await store.load('r')).toEqual(expected);
      expect(await twin().load('r')).toEqual(expected);
    }));

    h.it('entries are its own: changing what was appended or what was loaded changes nothing stored', withStore(async ({ store }) => {
      const entry = { v: 1, type: 'step', name: 'mutable', value: { list: [1, 2] } } as JournalEntry & { value: { list: number[] } };
      await store.append('r', [entry], 0);
      entry.value.list.push(3);
      const loaded = await store.load('r');
      expect(loaded).toEqual([step(0, { list: [1, 2] })].map((e) => ({ ...e, name: 'mutable' })));
      // A store returns fresh entries or entries frozen all the way down; either way nothing leaks back.
      const first = loaded[0] as { value: { list: number[] } };
      if (!Object.isFrozen(first.value.list)) first.value.list.push(4);
      loaded.pop();
      expect(await store.load('r')).toEqual([{ v: 1, type: 'step', name: 'mutable', value: { list: [1, 2] } }]);
    }));

    h.it('an append at a stale expectedLength is journal.conflict and writes nothing, in this store and its twin', withStore(async (opened) => {
      const { store, twin } = opened;
      await store.append('r', steps(0, 2), 0);
      const before = await snapshot(opened);
      for (const stale of [0, 1, 3, 10]) {
        expect(await codeOf(() => store.append('r', [step(stale)], stale))).toBe('journal.conflict');
        expect(await codeOf(() => twin().append('r', [step(stale)], stale))).toBe('journal.conflict');
      }
      expect(await codeOf(() => store.append('r', [], 1))).toBe('journal.conflict');
      expect(await codeOf(() => store.append('fresh', [step(0)], 1))).toBe('journal.conflict');
      expect(await snapshot(opened)).toEqual(before);
      expect(await store.load('r')).toEqual(steps(0, 2));
      expect(await store.load('fresh')).toEqual([]);
      // A length another writer moved is noticed by a store that wrote the old one itself.
      await twin().append('r', [step(2)], 2);
      expect(await codeOf(() => store.append('r', [step(2)], 2))).toBe('journal.conflict');
      await store.append('r', [step(3)], 3);
      await store.append('r', [], 4);
      expect(await twin().load('r')).toEqual(steps(0, 4));
    }));

    h.it('a batch lands whole or not at all: one entry JSON cannot hold refuses all of it; a load beside a batch sees none or all', withStore(async (opened) => {
      const { store, twin } = opened;
      await store.append('r', [step(0)], 0);
      const before = await snapshot(opened);
      expect(await codeOf(() => store.append('r', [step(1), step(2, { big: 1n }), step(3)], 1))).toBe('config.invalid_value');
      expect(await snapshot(opened)).toEqual(before);
      expect(await store.load('r')).toEqual([step(0)]);
      const batch = steps(1, 300);
      const appending = store.append('r', batch, 1);
      const seen = await Promise.all([store.load('r'), twin().load('r'), twin().load('r')]);
      await appending;
      for (const loaded of seen) expect([1, 301]).toContain(loaded.length);
      expect(await twin().load('r')).toEqual(steps(0, 301));
    }));

    if (capabilities.bigBatches !== false) {
      h.it('takes any batch the engine can produce: seven 10 MB tool results in one append', withStore(async ({ store, twin }) => {
        const results = Array.from({ length: 7 }, (_, i): JournalEntry => ({
          v: 1,
          type: 'tool',
          agent: 'a',
          turn: 0,
          index: i,
          result: { callId: `c${i}`, toolName: 'fetch', isError: false, output: String.fromCharCode(97 + i).repeat(10 * MIB) },
          audit: { verdict: 'allow', layer: 'default', advisory: [] },
        }));
        await store.append('big', [step(0)], 0);
        await store.append('big', results, 1);
        await store.append('big', [step(8)], 8);
        const loaded = await twin().load('big');
        expect(loaded.length).toBe(9);
        // Compared member by member: a 70 MB diff would drown a failure's message.
        for (let i = 0; i < 7; i += 1) expect(loaded[i + 1]).toEqual(results[i]);
        expect(loaded[8]).toEqual(step(8));
        // A guard against a hang only: 70 MB through a store, on a gate running two lanes at once.
      }), 180_000);

      journalEngineContract(h, withStore);
    }

    h.it('of writers racing at one expectedLength exactly one wins; the others are journal.conflict', withStore(async ({ store, twin }) => {
      await store.append('race', [step(0)], 0);
      for (let round = 1; round <= 3; round += 1) {
        const racers = [store, twin(), twin(), twin()];
        const settled = await Promise.allSettled(racers.map((racer, i) => racer.append('race', [step(round * 10 + i)], round)));
        const won = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        expect(settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as { code?: unknown }).code] : []))).toEqual(Array(racers.length - 1).fill('journal.conflict'));
        const loaded = await twin().load('race');
        expect(loaded).toHaveLength(round + 1);
        expect(loaded[round]).toEqual(step(round * 10 + won[0]!));
      }
    }));

    if (capabilities.runs === true) {
      h.it('runs() lists every run written, in the same order each time', withStore(async ({ store, twin }) => {
        for (const id of ['b-run', 'a-run', 'c-run']) await store.append(id, [step(0)], 0);
        await store.load('never-written');
        const listed = await store.runs!();
        expect([...listed].sort()).toEqual(['a-run', 'b-run', 'c-run']);
        expect(await twin().runs!()).toEqual(listed);
      }));
    }

    if (capabilities.lease === true) journalLeaseContract(h, withStore, capabilities.leaseMs ?? 400, snapshot);
  });
}
