/**
 * The JournalStore contract (spec/runtime.md, "Journals" and "One writer per run: leases") as
 * a suite over any store: a factory of fresh backings, and what the store offers (leases,
 * runs, watch). postgres-journal.test.ts runs it on PostgreSQL. It stands in for the shared
 * test/core/journal-contract.suite.ts until that lands; then the test file imports that
 * instead, and what here is Postgres-only moves there.
 */
import { describe, expect, it, vi } from 'vitest';
import type { JournalEntry, JournalStore } from '../../src/core/index.js';
import { ConfigError, RulvarError } from '../../src/core/index.js';

export interface ContractBacking {
  readonly store: JournalStore;
  /** Another store over the same backing (another process's, as far as the store can tell). */
  again(): Promise<JournalStore>;
}

export interface ContractSubject {
  fresh(): Promise<ContractBacking>;
  readonly capabilities: { readonly leases: boolean; readonly runs: boolean; readonly watch: boolean };
}

export const step = (n: number, value: unknown = n): JournalEntry => Object.freeze({ v: 1, type: 'step', name: `s${n}`, value }) as JournalEntry;
export const steps = (from: number, count: number): JournalEntry[] => Array.from({ length: count }, (_, i) => step(from + i));

/** The code a promise rejects with, or 'resolved'. */
export const codeOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => 'resolved', (error: { code?: unknown }) => error?.code);

export function journalContract(name: string, subject: ContractSubject): void {
  const { leases, runs, watch } = subject.capabilities;

  describe(`${name}: the JournalStore contract`, { timeout: 30_000 }, () => {
    it('round trip: batches load back in order, as fresh objects, through any store on the backing', async () => {
      const { store, again } = await subject.fresh();
      await store.append('r', steps(0, 2), 0);
      await store.append('r', [step(2, { nested: ['a', 1, null, true, -1.5] })], 2);
      const other = await again();
      const loaded = await other.load('r');
      expect(loaded).toEqual([...steps(0, 2), step(2, { nested: ['a', 1, null, true, -1.5] })]);
      (loaded[2] as unknown as { value: { nested: unknown[] } }).value.nested.push('changed');
      expect((await other.load('r'))[2]).toEqual(step(2, { nested: ['a', 1, null, true, -1.5] }));
      expect(await store.load('never written')).toEqual([]);
    });

    it('keeps every value exactly: key order, NUL, unpaired surrogates, escapes, large numbers', async () => {
      const { store, again } = await subject.fresh();
      const odd = { zeta: 1, alpha: { b: 2, a: 1, '': 0 }, nul: 'a\u0000b', lone: '\ud800x\udc00', text: 'naïve ✓ "q" \\ \n \u2028 😀', big: 1.7976931348623157e308, tiny: 5e-324, neg: -0.1 };
      await store.append('exact', [step(0, odd)], 0);
      const [back] = await (await again()).load('exact');
      expect(back).toEqual(step(0, odd));
      expect(JSON.stringify(back)).toBe(JSON.stringify(step(0, odd)));
    });

    it('a stale expectedLength is journal.conflict and writes nothing; so is one that can never match', async () => {
      const { store } = await subject.fresh();
      await store.append('r', steps(0, 2), 0);
      for (const stale of [0, 1, 3, 7, -1, 1.5, Number.NaN, 2 ** 40]) {
        const error = await store.append('r', [step(9)], stale).then(() => undefined, (e: unknown) => e);
        expect([RulvarError.is(error), (error as { code?: unknown }).code]).toEqual([true, 'journal.conflict']);
      }
      expect((await store.append('r', [step(9)], 1).catch((e: Error) => e.message)) as string).toContain('has 2 journal entries, not the 1');
      expect(await codeOf(store.append('fresh', [step(0)], 1))).toBe('journal.conflict');
      expect(await store.load('r')).toEqual(steps(0, 2));
    });

    it('an empty append checks the length and writes nothing', async () => {
      const { store } = await subject.fresh();
      await store.append('r', [], 0);
      await store.append('r', steps(0, 1), 0);
      await store.append('r', [], 1);
      expect(await codeOf(store.append('r', [], 0))).toBe('journal.conflict');
      expect(await codeOf(store.append('r', [], 2))).toBe('journal.conflict');
      expect(await store.load('r')).toEqual(steps(0, 1));
    });

    it('of eight appends racing at one expectedLength through separate stores, exactly one lands', async () => {
      const { store, again } = await subject.fresh();
      const writers = await Promise.all(Array.from({ length: 8 }, () => again()));
      await store.append('race', steps(0, 1), 0);
      for (let round = 1; round <= 3; round += 1) {
        const settled = await Promise.allSettled(writers.map((w, i) => w.append('race', [step(100 * round + i), step(100 * round + i + 50)], 2 * round - 1)));
        const won = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        expect(settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.code)).toEqual(Array(7).fill('journal.conflict'));
        expect((await store.load('race')).slice(-2)).toEqual([step(100 * round + won[0]!), step(100 * round + won[0]! + 50)]);
      }
      expect(await store.load('race')).toHaveLength(7);
    });

    // Issue 23 item 4: no store decides whether a run can finish (the shared suite's case; this
    // suite stands in for it on Postgres, which runs only here).
    it('takes any batch the engine can produce: seven 10 MB tool results in one append', async () => {
      const { store, again } = await subject.fresh();
      const results = Array.from({ length: 7 }, (_, i): JournalEntry => ({
        v: 1,
        type: 'tool',
        agent: 'a',
        turn: 0,
        index: i,
        result: { callId: `c${i}`, toolName: 'fetch', isError: false, output: String.fromCharCode(97 + i).repeat(10 * 1024 * 1024) },
        audit: { verdict: 'allow', layer: 'default', advisory: [] },
      }));
      await store.append('big', [step(0)], 0);
      await store.append('big', results, 1);
      await store.append('big', [step(8)], 8);
      const loaded = await (await again()).load('big');
      expect(loaded).toHaveLength(9);
      // Member by member: a 70 MB diff would drown a failure's message.
      for (let i = 0; i < 7; i += 1) expect(loaded[i + 1]).toEqual(results[i]);
      expect(loaded[8]).toEqual(step(8));
      // A guard against a hang only: 70 MB through a server, on a gate running two lanes at once.
    }, 180_000);

    it('an entry JSON cannot hold refuses the whole append with config.invalid_value', async () => {
      const { store } = await subject.fresh();
      const cyclic: Record<string, unknown> = { v: 1, type: 'step', name: 'c' };
      cyclic['value'] = cyclic;
      for (const bad of [cyclic, { v: 1, type: 'step', name: 'b', value: 1n }, 'text', null, [1], 7]) {
        const error = await store.append('r', [step(0), bad as unknown as JournalEntry], 0).then(() => undefined, (e: unknown) => e);
        expect([ConfigError.is(error), (error as { code?: unknown }).code]).toEqual([true, 'config.invalid_value']);
        expect((error as Error).message).toContain('journal entry 1 of run "r"');
      }
      expect(await store.load('r')).toEqual([]);
    });

    it('run ids: unfit ones refused before anything is written, look-alikes kept apart', async () => {
      const { store } = await subject.fresh();
      for (const bad of ['', 'x'.repeat(129), 'a\u0000b', 'a\nb', '\u007f', '\ud800', 'a\udc00', 42, undefined]) {
        expect(await codeOf(store.load(bad as string))).toBe('config.invalid_value');
        expect(await codeOf(store.append(bad as string, [step(0)], 0))).toBe('config.invalid_value');
      }
      const ids = ['x', 'X', 'x ', ' x', "x'; DROP TABLE t; --", 'x%', 'x_', '😀'.repeat(64), 'é', 'e\u0301'];
      for (const [i, id] of ids.entries()) await store.append(id, [step(i, id)], 0);
      for (const [i, id] of ids.entries()) expect(await store.load(id)).toEqual([step(i, id)]);
    });

    it.runIf(runs)('runs() lists every run with entries, in a stable byte order', async () => {
      const { store, again } = await subject.fresh();
      expect(await store.runs!()).toEqual([]);
      const ids = ['b', 'a', 'B', 'é', 'a-2', '10', '9', '😀'];
      for (const id of ids) await store.append(id, [step(0)], 0);
      await store.append('a', [step(1)], 1);
      const expected = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(await store.runs!()).toEqual(expected);
      expect(await (await again()).runs!()).toEqual(expected);
    });

    describe.runIf(leases)('leases', () => {
      it('a claim holds the run: loads and appends go through it, another holder is refused run.claimed', async () => {
        const { store, again } = await subject.fresh();
        const lease = await store.claim!('r', { holder: 'a', ms: 30_000 });
        expect([lease.runId, lease.holder]).toEqual(['r', 'a']);
        expect(await lease.load()).toEqual([]);
        await lease.append(steps(0, 2), 0);
        expect(await codeOf(lease.append([step(9)], 1))).toBe('journal.conflict');
        // An empty append through the lease checks the length (and the lease) and writes nothing.
        await lease.append([], 2);
        expect(await codeOf(lease.append([], 1))).toBe('journal.conflict');
        expect(await lease.load()).toEqual(steps(0, 2));
        const other = await again();
        const refused = await other.claim!('r', { holder: 'b', ms: 30_000 }).then(() => undefined, (e: unknown) => e);
        expect([RulvarError.is(refused), (refused as { code?: unknown }).code]).toEqual([true, 'run.claimed']);
        // The holder claiming again keeps its lease; a claim of another run is unaffected.
        await (await other.claim!('r', { holder: 'a', ms: 30_000 })).append([step(2)], 2);
        await other.claim!('other run', { holder: 'b', ms: 30_000 });
        await lease.append([step(3)], 3);
        expect(await store.load('r')).toEqual(steps(0, 4));
      });

      it('release frees the run at once, is idempotent and never rejects', async () => {
        const { store } = await subject.fresh();
        const lease = await store.claim!('r', { holder: 'a', ms: 30_000 });
        await lease.release();
        await lease.release();
        const next = await store.claim!('r', { holder: 'b', ms: 30_000 });
        expect(await codeOf(lease.append([step(0)], 0))).toBe('run.lease_lost');
        expect(await codeOf(lease.append([], 0))).toBe('run.lease_lost');
        expect(await codeOf(lease.renew())).toBe('run.lease_lost');
        // The old holder's release cannot end the new holder's lease.
        await lease.release();
        expect(await codeOf(store.claim!('r', { holder: 'c', ms: 30_000 }))).toBe('run.claimed');
        await next.append([step(0)], 0);
      });

      it('writers without the lease still append (a resolution); the holder then meets journal.conflict', async () => {
        const { store, again } = await subject.fresh();
        const lease = await store.claim!('r', { holder: 'a', ms: 30_000 });
        await lease.append(steps(0, 1), 0);
        await (await again()).append('r', [step(1)], 1);
        expect(await codeOf(lease.append([step(9)], 1))).toBe('journal.conflict');
        expect(await lease.load()).toEqual(steps(0, 2));
        await lease.append([step(2)], 2);
      });

      it('a lease ends `ms` after its claim or last renewal, judged by the store, not the caller clock', async () => {
        const { store, again } = await subject.fresh();
        const other = await again();
        // Long enough that a busy machine's round trips stay well inside each check's margin.
        const ms = 2_000;
        const claimedBy = async (runId: string) => codeOf(other.claim!(runId, { holder: 'b', ms }));
        // Two runs at once: one left to expire, one renewed halfway. Each check sits past half
        // the span it tests (a store that halved it fails) and well before twice it (doubled).
        const [plain, renewed] = [await store.claim!('plain', { holder: 'a', ms }), await store.claim!('renewed', { holder: 'a', ms })];
        const claimed = Date.now();
        await sleep(claimed + 0.6 * ms - Date.now());
        expect([await claimedBy('plain'), await claimedBy('renewed')]).toEqual(['run.claimed', 'run.claimed']);
        await renewed.renew();
        const renewedAt = Date.now();
        await sleep(claimed + 1.3 * ms - Date.now());
        expect([await claimedBy('plain'), await claimedBy('renewed')]).toEqual(['resolved', 'run.claimed']);
        await sleep(renewedAt + 1.3 * ms - Date.now());
        expect(await claimedBy('renewed')).toBe('resolved');
        for (const lost of [plain, renewed]) {
          expect(await codeOf(lost.append([step(0)], 0))).toBe('run.lease_lost');
          expect(await codeOf(lost.renew())).toBe('run.lease_lost');
          expect(await codeOf(lost.load())).toBe('run.lease_lost');
        }
        expect([await store.load('plain'), await store.load('renewed')]).toEqual([[], []]);

        // The caller's clock an hour ahead changes nothing: expiry is the store's judgement.
        const held = await store.claim!('clock', { holder: 'a', ms: 30_000 });
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
        try {
          expect(await codeOf(other.claim!('clock', { holder: 'b', ms }))).toBe('run.claimed');
          await held.append([step(0)], 0);
        } finally {
          vi.useRealTimers();
        }
      });

      it('an expired lease nobody took is still lost: its holder writes nothing', async () => {
        const { store } = await subject.fresh();
        // Long enough for the first append on a loaded gate; a lease of 150 ms once was not (file).
        const lease = await store.claim!('r', { holder: 'a', ms: 1_000 });
        await lease.append([step(0)], 0);
        await sleep(1_200);
        expect(await codeOf(lease.append([step(1)], 1))).toBe('run.lease_lost');
        expect(await codeOf(lease.renew())).toBe('run.lease_lost');
        expect(await store.load('r')).toEqual([step(0)]);
        // The same holder may claim it again.
        await (await store.claim!('r', { holder: 'a', ms: 30_000 })).append([step(1)], 1);
      });

      it('claims refuse holders and durations they cannot keep', async () => {
        const { store } = await subject.fresh();
        for (const request of [{ holder: '', ms: 10 }, { holder: 'a\u0000', ms: 10 }, { holder: 'a', ms: 0 }, { holder: 'a', ms: 1.5 }, { holder: 'a', ms: -5 }, { holder: 'a' }, undefined]) {
          expect(await codeOf(store.claim!('r', request as never))).toBe('config.invalid_value');
        }
        expect(await codeOf(store.claim!('\u0000', { holder: 'a', ms: 10 }))).toBe('config.invalid_value');
      });
    });

    describe.runIf(watch)('watch', () => {
      it('wakes on an append and a release by another store, and nothing after its signal aborts', async () => {
        const { store, again } = await subject.fresh();
        const writer = await again();
        const woken: string[] = [];
        const stop = new AbortController();
        store.watch!((runId) => woken.push(runId), stop.signal);
        await until(async () => {
          await writer.append('w', [step(woken.length)], (await writer.load('w')).length);
          return woken.includes('w');
        }, 'a wake for an append');
        const lease = await writer.claim?.('lease run', { holder: 'a', ms: 30_000 });
        if (lease !== undefined) {
          await lease.release();
          await until(async () => woken.includes('lease run'), 'a wake for a release');
        }
        stop.abort();
        const before = woken.length;
        await writer.append('after', [step(0)], 0);
        await sleep(500);
        expect(woken.length).toBe(before);
      });
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Polls `check` every 50 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); !(await check()); await sleep(50)) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}
