/**
 * The lease part of the JournalStore contract (LEASES.md, spec/runtime.md "One writer per
 * run: leases"), for stores with `claim`: a claim gives a lease that loads and appends the run
 * fenced by expectedLength; a second holder is `run.claimed` while it is live; a lease not
 * renewed expires after `ms` (not before, and not much after: both sides of the bound, on the
 * store's real clock); once it has, the old holder's append and renew are `run.lease_lost`
 * and write nothing, whether or not another holder took the run; renewed, it outlives `ms`; released, the run is free at once; and a
 * writer without the lease (a resolveExternal) still appends while it is held.
 */
import type { JournalEntry, JournalStore } from '../../src/core/index.js';
import type { JournalLease } from '../../src/core/journal/store.js';
import { caught, sleep } from './helpers.js';
import type { ContractHarness, OpenedStore } from './journal-contract.suite.js';

const step = (n: number): JournalEntry => ({ v: 1, type: 'step', name: `s${n}`, value: n });
const steps = (from: number, count: number): JournalEntry[] => Array.from({ length: count }, (_, i) => step(from + i));
const now = (): number => Date.now();

type WithStore = (body: (opened: OpenedStore) => Promise<void>) => () => Promise<void>;

export function journalLeaseContract(h: ContractHarness, withStore: WithStore, ms: number, snapshot: (opened: OpenedStore) => Promise<unknown>): void {
  const expect = h.expect;
  const codeOf = async (work: () => unknown) => ((await caught(work)) as { code?: unknown }).code;
  const claim = (store: JournalStore, runId: string, holder: string): Promise<JournalLease> => store.claim!(runId, { holder, ms });
  /** How long a case may take: its own waits, with room for a loaded machine. */
  const budget = ms * 6 + 10_000;

  h.describe('lease', () => {
    h.it('a claim gives a lease that loads the run and appends to it, fenced by expectedLength; a run never written can be claimed', withStore(async ({ store, twin }) => {
      await store.append('r', [step(0)], 0);
      const lease = await claim(store, 'r', 'holder-a');
      expect([lease.runId, lease.holder]).toEqual(['r', 'holder-a']);
      expect(await lease.load()).toEqual([step(0)]);
      await lease.append([step(1)], 1);
      expect(await codeOf(() => lease.append([step(9)], 1))).toBe('journal.conflict');
      expect(await lease.load()).toEqual(steps(0, 2));
      expect(await twin().load('r')).toEqual(steps(0, 2));
      await lease.release();
      const fresh = await claim(store, 'new', 'holder-a');
      expect(await fresh.load()).toEqual([]);
      await fresh.append([step(0)], 0);
      await fresh.release();
      expect(await twin().load('new')).toEqual([step(0)]);
    }), budget);

    h.it('a second holder is run.claimed while the lease is live, through the store and its twin; released, the run is free at once', withStore(async ({ store, twin }) => {
      const held = await claim(store, 'r', 'holder-a');
      expect(await codeOf(() => claim(store, 'r', 'holder-b'))).toBe('run.claimed');
      expect(await codeOf(() => claim(twin(), 'r', 'holder-b'))).toBe('run.claimed');
      await held.release();
      await held.release();
      const started = now();
      const next = await claim(twin(), 'r', 'holder-b');
      expect(now() - started).toBeLessThan(ms / 2);
      await next.release();
    }), budget);

    h.it('a lease not renewed expires after ms and not before; the old holder is then run.lease_lost and writes nothing', withStore(async (opened) => {
      const { store, twin } = opened;
      await store.append('r', [step(0)], 0);
      const asked = now();
      const old = await claim(store, 'r', 'holder-a');
      const claimed = now();
      // The first try comes at ms / 3; on a loaded machine it may already be past ms, so what is
      // pinned is when a try first succeeds (never before ms), not that this one fails.
      await sleep(ms / 3);
      let taken: JournalLease | undefined;
      while (taken === undefined) {
        try {
          taken = await claim(twin(), 'r', 'holder-b');
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'run.claimed' || now() - claimed > ms * 4 + 5_000) throw error;
          await sleep(ms / 20);
        }
      }
      const takenAt = now();
      // Not before ms (a little slack for coarse file-system clocks), and not much after.
      expect(takenAt - asked).toBeGreaterThanOrEqual(ms - 25);
      expect(takenAt - claimed).toBeLessThanOrEqual(ms * 1.5 + 100);
      const before = await snapshot(opened);
      expect(await codeOf(() => old.append([step(1)], 1))).toBe('run.lease_lost');
      expect(await codeOf(() => old.renew())).toBe('run.lease_lost');
      expect(await snapshot(opened)).toEqual(before);
      expect(await twin().load('r')).toEqual([step(0)]);
      // Releasing a lost lease never rejects, and leaves the new holder's lease alone.
      await old.release();
      expect(await codeOf(() => claim(store, 'r', 'holder-c'))).toBe('run.claimed');
      await taken.append([step(1)], 1);
      await taken.release();
      expect(await store.load('r')).toEqual(steps(0, 2));
    }), budget);

    h.it('a lease not renewed within ms is run.lease_lost even when nobody claimed the run, and writes nothing; its release frees the run', withStore(async ({ store, twin }) => {
      await store.append('r', [step(0)], 0);
      const stale = await claim(store, 'r', 'holder-a');
      await sleep(ms * 1.5);
      expect(await codeOf(() => stale.append([step(1)], 1))).toBe('run.lease_lost');
      expect(await codeOf(() => stale.renew())).toBe('run.lease_lost');
      await stale.release();
      expect(await twin().load('r')).toEqual([step(0)]);
      const next = await claim(twin(), 'r', 'holder-b');
      await next.append([step(1)], 1);
      await next.release();
    }), budget);

    h.it('renewed every ms / 3, a lease outlives ms: the other holder stays run.claimed for 2 × ms', withStore(async ({ store, twin }) => {
      const held = await claim(store, 'r', 'holder-a');
      for (let round = 0; round < 6; round += 1) {
        await sleep(ms / 3);
        await held.renew();
        expect(await codeOf(() => claim(twin(), 'r', 'holder-b'))).toBe('run.claimed');
      }
      await held.append([step(0)], 0);
      await held.release();
      expect(await twin().load('r')).toEqual([step(0)]);
    }), budget);

    h.it('a writer without the lease still appends while it is held (a resolveExternal); the holder meets journal.conflict, loads it, goes on', withStore(async ({ store, twin }) => {
      await store.append('r', [step(0)], 0);
      const held = await claim(store, 'r', 'holder-a');
      await twin().append('r', [step(1)], 1);
      expect(await codeOf(() => held.append([step(9)], 1))).toBe('journal.conflict');
      expect(await held.load()).toEqual(steps(0, 2));
      await held.append([step(2)], 2);
      expect(await codeOf(() => twin().append('r', [step(9)], 2))).toBe('journal.conflict');
      expect(await twin().load('r')).toEqual(steps(0, 3));
      await held.release();
    }), budget);
  });
}
