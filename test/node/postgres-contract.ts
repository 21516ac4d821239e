/**
 * What postgresJournal is held to beyond the shared JournalStore contract
 * (test/core/journal-contract.suite.ts, which postgres-journal.test.ts also runs on it): values
 * kept exactly (key order, NUL, unpaired surrogates), expected lengths that can never match,
 * empty appends, entry shapes JSON cannot hold, unfit and look-alike run ids, runs() in byte
 * order, lease expiry judged on the database's clock, claims it cannot keep, and its watch.
 * Also the helpers the Postgres test files share.
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

export function postgresContractExtras(name: string, subject: ContractSubject): void {
  const { leases, runs, watch } = subject.capabilities;

  describe(`${name}: beyond the shared JournalStore contract`, { timeout: 30_000 }, () => {
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
