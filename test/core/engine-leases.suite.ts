/**
 * One writer per run (spec/runtime.md, "One writer per run: leases"; issue 25): engines claim
 * a run before anything that acts, so two engines resolving and resuming one suspended run at
 * once pay each model turn and run the approved effect once, and the loser settles
 * `run.claimed` (or `journal.conflict`) having done nothing. A dead holder's run is free
 * `leaseMs` after its last renewal and not before; a holder whose renewal stalls performs no
 * effect until it is confirmed, and one that lost the lease fails `run.lease_lost` with none.
 * Each holds for the memory store's own claim, the entry lease any store without `claim` gets,
 * and the Durable Object journal's claim. Idempotency keys are per incarnation.
 */
import type { Engine, JournalLease, JournalStore, LeaseRequest, RunOutcome, ToolContext } from '../../src/core/index.js';
import { scripted, type ScriptedModel } from '../../src/testing/index.js';
import { fakeDurableObjectStorage } from './durable-object-storage-fake.js';
import type { SuiteHarness } from './harness.js';
import { sleep, until } from './helpers.js';

const MODEL = 'scripted:m';
const ASK = { toolCalls: [{ name: 'pay', input: { amount: 5 } }] };
const RACES = 20;

export function engineLeasesSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, durableObjectJournal } = h.lib;
  const expect = h.expect;

  /** The same store with no `claim` of its own: the engine keeps its lease in lease entries. */
  const withoutClaim = (inner: JournalStore): JournalStore => ({ load: (id) => inner.load(id), append: (id, entries, n) => inner.append(id, entries, n) });
  const flavours: [string, () => JournalStore][] = [
    ['memoryJournal (its own claim)', () => memoryJournal()],
    ['a store without claim (entry lease)', () => withoutClaim(memoryJournal())],
    ['durableObjectJournal (its own claim)', () => durableObjectJournal(fakeDurableObjectStorage())],
  ];

  /** One engine's side: its own model and its own pay tool, so effects are told apart. */
  const side = (journal: JournalStore, leaseMs?: number) => {
    const paid: unknown[] = [];
    const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: (input: unknown) => (paid.push(input), 'paid') });
    const model = scripted([ASK, 'done']);
    const wf = defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).text);
    const engine = createEngine({ adapters: [model], journal, defaults: { model: MODEL }, ...(leaseMs === undefined ? {} : { leaseMs }) });
    return { engine, model, paid, wf };
  };
  const suspend = async (journal: JournalStore) => {
    const first = side(journal);
    const outcome = await first.engine.run(first.wf, null).result;
    if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${JSON.stringify(outcome)}`);
    return outcome.approvals[0]!;
  };
  const code = (outcome: RunOutcome) => (outcome.status === 'failed' ? outcome.error.code : outcome.status);
  /** The model turns and tool runs a side paid for. */
  const effects = (s: { model: ScriptedModel; paid: unknown[] }) => s.model.calls + s.paid.length;

  for (const [flavour, journalOf] of flavours) {
    h.describe(`engine leases: ${flavour}`, () => {
      h.it(`two engines resolve and resume one suspended run at one instant, ${RACES} times: one effect, one model call per turn, the loser does nothing`, async () => {
        const losers = new Set<string>();
        for (let race = 0; race < RACES; race += 1) {
          const journal = journalOf();
          const { runId, key } = await suspend(journal);
          const a = side(journal);
          const b = side(journal);
          // Allow against allow on even races, allow against deny on odd ones.
          const [ra, rb] = await Promise.all([
            a.engine.resolveExternal(runId, key, 'allow').then(() => a.engine.resume(runId, a.wf).result),
            b.engine.resolveExternal(runId, key, race % 2 === 0 ? 'allow' : 'deny').then(() => b.engine.resume(runId, b.wf).result),
          ]);
          const resolution = (await journal.load(runId)).filter((e) => e.type === 'resolution');
          expect(resolution).toHaveLength(1);
          const allowed = resolution[0]?.type === 'resolution' && resolution[0].decision === 'allow';
          expect([a.paid.length + b.paid.length, a.model.calls + b.model.calls]).toEqual([allowed ? 1 : 0, 1]);
          const sides = [
            { s: a, outcome: ra },
            { s: b, outcome: rb },
          ];
          const winner = sides.filter(({ s }) => effects(s) > 0);
          expect(winner).toHaveLength(1);
          expect(winner[0]?.outcome).toEqual({ status: 'completed', value: 'done' });
          const loser = sides.find(({ s }) => effects(s) === 0)!;
          // It met the holder (claimed, or its append lost), or came after it had finished.
          expect(['run.claimed', 'journal.conflict', 'completed']).toContain(code(loser.outcome));
          losers.add(code(loser.outcome));
        }
        expect(losers.has('run.claimed')).toBe(true);
      }, 60_000);

      h.it('a lease is live for its ms: writes and renewals go through; once it ran out unrenewed they refuse run.lease_lost and write nothing', async () => {
        // Long enough that a loaded machine's claim and renewal round trips stay well inside it
        // (300 ms once lost the renewed lease under a mutation run's instrumentation).
        const MS = 600;
        const journal = journalOf();
        const lease = await claimOf(journal, 'expiring', { holder: 'one', ms: MS });
        const claimedAt = Date.now();
        const at = (await lease.load()).length;
        await sleep(MS / 2 - (Date.now() - claimedAt));
        await lease.append([{ v: 1, type: 'step', name: 'in time', value: null }], at);
        await sleep(MS + 50 - (Date.now() - claimedAt));
        await expectCode(() => lease.append([{ v: 1, type: 'step', name: 'too late', value: null }], at + 1), ['run.lease_lost']);
        await expectCode(() => lease.renew(), ['run.lease_lost']);
        expect((await journal.load('expiring')).filter((e) => e.type === 'step').map((e) => e.type === 'step' && e.name)).toEqual(['in time']);
        // A renewed lease lasts its ms from the renewal; a released one is free at once.
        const renewed = await claimOf(journal, 'renewed', { holder: 'one', ms: MS });
        await sleep(MS / 2);
        await renewed.renew();
        const renewedAt = Date.now();
        await sleep(MS * 0.75 - (Date.now() - renewedAt));
        await renewed.append([{ v: 1, type: 'step', name: 'still held', value: null }], (await journal.load('renewed')).length);
        await expectCode(() => claimOf(journal, 'renewed', { holder: 'two', ms: MS }), ['run.claimed']);
        await renewed.release();
        await (await claimOf(journal, 'renewed', { holder: 'two', ms: MS })).release();
      });

      h.it("a dead holder's run is refused before leaseMs has passed and completes after it", async () => {
        const LEASE_MS = 400;
        const journal = journalOf();
        const { runId, key } = await suspend(journal);
        const claimed = await claimOf(journal, runId, { holder: 'a dead engine', ms: LEASE_MS });
        const claimedAt = Date.now();
        const knownLength = (await claimed.load()).length;
        const late = side(journal);
        await late.engine.resolveExternal(runId, key, 'allow');
        await sleep(LEASE_MS / 2 - (Date.now() - claimedAt));
        expect(code(await late.engine.resume(runId, late.wf).result)).toBe('run.claimed');
        expect(effects(late)).toBe(0);
        await sleep(LEASE_MS + 50 - (Date.now() - claimedAt));
        expect(await late.engine.resume(runId, late.wf).result).toEqual({ status: 'completed', value: 'done' });
        expect([late.paid.length, late.model.calls]).toEqual([1, 1]);
        // The dead holder, back: every write of its lease is refused.
        await expectCode(() => claimed.append([{ v: 1, type: 'step', name: 'late', value: null }], knownLength), ['run.lease_lost']);
        await expectCode(() => claimed.renew(), ['run.lease_lost']);
      }, 30_000);

      h.it('a holder whose renewals stall (a paused process) does nothing more once its lease is stale: the next call waits, another engine takes the run, the holder fails run.lease_lost', async () => {
        const LEASE_MS = 300;
        const inner = journalOf();
        // The paused engine's renewals hang until released, as a stopped process's would.
        let unstall = (): void => undefined;
        const stalled = new Promise<void>((resolve) => (unstall = resolve));
        const stalling: JournalStore = { ...bindStore(inner), claim: async (id, request) => stallRenewals(await claimOf(inner, id, request), stalled) };
        /** One turn asking for `slow` (twice the lease) and then `charge`, on this side's own tools. */
        const worker = (journal: JournalStore) => {
          const ran = { slow: 0, charge: 0 };
          const slow = tool({ name: 'slow', description: 'slow', parameters: { type: 'object' }, execute: async () => (await sleep(2 * LEASE_MS), (ran.slow += 1), 'slow done') });
          const charge = tool({ name: 'charge', description: 'charges', parameters: { type: 'object' }, execute: () => ((ran.charge += 1), 'charged') });
          const model = scripted([{ toolCalls: [{ name: 'slow', input: {} }, { name: 'charge', input: {} }] }, 'done']);
          const wf = defineWorkflow({ name: 'worker' }, async (ctx) => (await ctx.agent('work', { tools: [slow, charge] })).text);
          const engine = createEngine({ adapters: [model], journal, defaults: { model: MODEL }, leaseMs: LEASE_MS });
          return { engine, wf, ran, model };
        };
        const paused = worker(stalling);
        const held = paused.engine.run(paused.wf, null, { runId: 'paused' });
        await sleep(LEASE_MS + 50);
        // Its lease ran out unrenewed: another engine takes the run over and finishes it.
        const other = worker(inner);
        expect(await other.engine.resume('paused', other.wf).result).toEqual({ status: 'completed', value: 'done' });
        // The paused one finishes its slow call and then waits on a renewal, charging nothing.
        await until(() => paused.ran.slow === 1, 'the paused slow call', 5_000);
        await sleep(50);
        expect(paused.ran).toEqual({ slow: 1, charge: 0 });
        unstall();
        expect(code(await held.result)).toBe('run.lease_lost');
        // The slow call ran in both (the window a stall shares with a crash); the charge only once.
        expect([paused.model.calls, paused.ran]).toEqual([1, { slow: 1, charge: 0 }]);
        expect([other.model.calls, other.ran]).toEqual([1, { slow: 1, charge: 1 }]);
        const types = (await inner.load('paused')).map((e) => e.type).filter((t) => t !== 'lease');
        expect(types).toEqual(['run:start', 'spawn', 'turn', 'tool', 'tool', 'turn', 'agent:end', 'run:end']);
      }, 30_000);

      h.it('a resumed holder whose lease went stale before an approved call runs it only once its renewal is confirmed: another engine takes the run, the holder pays nothing', async () => {
        const LEASE_MS = 300;
        const inner = journalOf();
        const { runId, key } = await suspend(inner);
        let unstall = (): void => undefined;
        const stalled = new Promise<void>((resolve) => (unstall = resolve));
        const stalling: JournalStore = { ...bindStore(inner), claim: async (id, request) => stallRenewals(await claimOf(inner, id, request), stalled) };
        /** A payer whose workflow dawdles (plain code, replayed each time) before its agent, past a third of the lease. */
        const slowSide = (journal: JournalStore) => {
          const paid: unknown[] = [];
          const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: (input: unknown) => (paid.push(input), 'paid') });
          const model = scripted([ASK, 'done']);
          const wf = defineWorkflow({ name: 'payer' }, async (ctx) => {
            await sleep(2 * LEASE_MS);
            return (await ctx.agent('pay', { tools: [pay] })).text;
          });
          return { engine: createEngine({ adapters: [model], journal, defaults: { model: MODEL }, leaseMs: LEASE_MS }), paid, model, wf };
        };
        const paused = slowSide(stalling);
        expect(await paused.engine.resolveExternal(runId, key, 'allow')).toBe(true);
        const held = paused.engine.resume(runId, paused.wf);
        // Its renewal hangs: once the lease ran out, another engine takes the run and pays.
        await sleep(LEASE_MS + 50);
        const other = slowSide(inner);
        expect(await other.engine.resume(runId, other.wf).result).toEqual({ status: 'completed', value: 'done' });
        expect(other.paid).toEqual([{ amount: 5 }]);
        expect(paused.paid).toEqual([]);
        unstall();
        expect(code(await held.result)).toBe('run.lease_lost');
        expect(paused.paid).toEqual([]);
        expect((await inner.load(runId)).filter((e) => e.type === 'tool')).toHaveLength(1);
      }, 30_000);
    });
  }

  h.describe('engine leases: the engine side', () => {
    /** A store recording every claim and renewal it is asked for. */
    const recording = () => {
      const inner = memoryJournal();
      const claims: LeaseRequest[] = [];
      const renewals: number[] = [];
      const store: JournalStore = {
        ...bindStore(inner),
        async claim(runId, request) {
          claims.push(request);
          const lease = await claimOf(inner, runId, request);
          return { ...lease, load: () => lease.load(), append: (e, n) => lease.append(e, n), release: () => lease.release(), renew: () => (renewals.push(Date.now()), lease.renew()) };
        },
      };
      return { store, claims, renewals };
    };

    h.it('claims with leaseMs (30,000 unless set) under one holder id per engine', async () => {
      for (const leaseMs of [undefined, 1_234]) {
        const { store, claims } = recording();
        const engine = createEngine({ adapters: [scripted(['a', 'b'])], journal: store, defaults: { model: MODEL }, ...(leaseMs === undefined ? {} : { leaseMs }) });
        const wf = defineWorkflow({ name: 'plain' }, async (ctx) => (await ctx.agent('go')).text);
        await engine.run(wf, null).result;
        await engine.run(wf, null).result;
        expect(claims.map((c) => c.ms)).toEqual([leaseMs ?? 30_000, leaseMs ?? 30_000]);
        expect(claims[0]?.holder).toBe(claims[1]?.holder);
        expect(claims[0]?.holder).toMatch(/^rulvar-engine-/);
      }
    });

    h.it('a leaseMs that is no whole number of milliseconds a timer can hold is refused at createEngine', () => {
      for (const bad of [0, 2, 1.5, -1, Number.NaN, Infinity, 2 ** 31, '100']) {
        let error: unknown;
        try {
          createEngine({ adapters: [scripted([])], leaseMs: bad as number });
        } catch (e) {
          error = e;
        }
        expect([bad, h.lib.ConfigError.is(error) && (error as { code: string }).code]).toEqual([bad, 'config.invalid_value']);
      }
      expect(() => createEngine({ adapters: [scripted([])], leaseMs: 3 })).not.toThrow();
    });

    h.it('renews every third of leaseMs while a slow tool runs: not twice as often, not half as often', async () => {
      const LEASE_MS = 600;
      const { store, renewals } = recording();
      const during = { from: 0, to: 0 };
      const slowTool = tool({
        name: 'slow',
        description: 'slow',
        parameters: { type: 'object' },
        execute: async () => {
          during.from = Date.now();
          await sleep(1_500);
          during.to = Date.now();
          return 'ok';
        },
      });
      const engine = createEngine({ adapters: [scripted([{ toolCalls: [{ name: 'slow', input: {} }] }, 'done'])], journal: store, defaults: { model: MODEL }, leaseMs: LEASE_MS });
      const wf = defineWorkflow({ name: 'slow' }, async (ctx) => (await ctx.agent('go', { tools: [slowTool] })).text);
      expect(await engine.run(wf, null).result).toEqual({ status: 'completed', value: 'done' });
      // Only the timer renews while nothing else happens: the renewals made during the tool.
      const timed = renewals.filter((at) => at >= during.from && at <= during.to);
      const gaps = timed.slice(1).map((at, i) => at - timed[i]!);
      gaps.sort((x, y) => x - y);
      expect(timed.length).toBeGreaterThanOrEqual(4);
      // The median gap, from both sides: one renewal a loaded machine ran late shortens the
      // gap after it, so no single gap is bounded below (a twice-as-often timer gives ~100).
      const median = gaps[Math.floor(gaps.length / 2)]!;
      expect(median).toBeGreaterThan((LEASE_MS / 3) * 0.7);
      expect(median).toBeLessThan((LEASE_MS / 3) * 1.5);
    }, 30_000);

    h.it('a second handle of the same engine on a run it works is refused run.claimed; refusals and completed runs claim nothing', async () => {
      const { store, claims } = recording();
      const { runId, key } = await suspend(store);
      const s = side(store);
      await s.engine.resolveExternal(runId, key, 'allow');
      claims.length = 0;
      const first = s.engine.resume(runId, s.wf);
      const second = s.engine.resume(runId, s.wf);
      expect(code(await second.result)).toBe('run.claimed');
      expect(await first.result).toEqual({ status: 'completed', value: 'done' });
      expect(await s.engine.resume(runId, s.wf).result).toEqual({ status: 'completed', value: 'done' });
      expect(code(await s.engine.resume('no-such-run', s.wf).result)).toBe('journal.unknown_run');
      expect(code(await s.engine.resume(runId, defineWorkflow({ name: 'other' }, async () => null)).result)).toBe('journal.workflow_mismatch');
      expect(claims).toHaveLength(1);
      expect(s.paid).toHaveLength(1);
    });

    h.it('lease entries are no part of the run: replay ignores them, and run refuses none-but-lease journals only when they hold a run', async () => {
      const journal = withoutClaim(memoryJournal());
      const { runId, key } = await suspend(journal);
      const s = side(journal);
      await s.engine.resolveExternal(runId, key, 'allow');
      expect(await s.engine.resume(runId, s.wf).result).toEqual({ status: 'completed', value: 'done' });
      const types = (await journal.load(runId)).map((e) => e.type);
      expect(types.filter((t) => t === 'lease').length).toBeGreaterThanOrEqual(2);
      expect(types.filter((t) => t !== 'lease')).toEqual(['run:start', 'spawn', 'turn', 'approval', 'resolution', 'tool', 'turn', 'agent:end', 'run:end']);
      // A journal holding only a lease (its engine died before run:start) is no run yet.
      await journal.append('only-lease', [{ v: 1, type: 'lease', holder: 'gone', until: 0 }], 0);
      const fresh = side(journal);
      expect(code(await fresh.engine.resume('only-lease', fresh.wf).result)).toBe('journal.unknown_run');
      expect((await fresh.engine.run(fresh.wf, null, { runId: 'only-lease' }).result).status).toBe('suspended');
    });
  });

  h.describe('engine: idempotency keys per incarnation', () => {
    const keeping = () => {
      const keys: (string | undefined)[] = [];
      const def = tool({ name: 'note', description: 'notes', parameters: { type: 'object' }, execute: (_i: unknown, ctx: ToolContext) => (keys.push(ctx.idempotencyKey), 'noted') });
      return { def, keys };
    };
    const runNotes = (journal: JournalStore, def: ReturnType<typeof keeping>['def'], runId: string): Promise<RunOutcome> => {
      const wf = defineWorkflow({ name: 'notes' }, async (ctx) => (await ctx.agent('go', { tools: [def] })).text);
      return createEngine({ adapters: [scripted([{ toolCalls: [{ name: 'note', input: {} }] }, 'done'])], journal, defaults: { model: MODEL } }).run(wf, null, { runId }).result;
    };

    h.it('a new run reusing a run id (its journal deleted, or another journal) gets new keys', async () => {
      const note = keeping();
      await runNotes(memoryJournal(), note.def, 'reused');
      await runNotes(memoryJournal(), note.def, 'reused');
      expect(note.keys).toHaveLength(2);
      expect(note.keys[0]).toMatch(/^rulvar-[0-9a-f]{32}-0-0$/);
      expect(note.keys[1]).not.toBe(note.keys[0]);
      const start = (await (async () => {
        const journal = memoryJournal();
        await runNotes(journal, note.def, 'seen');
        return journal.load('seen');
      })())[0];
      expect(start?.type === 'run:start' && start.incarnation).toMatch(/^[0-9a-f-]{36}$/);
    });

    h.it('a run journaled before incarnations keeps its keys: the hash of identity, run id and ordinal', async () => {
      const journal = memoryJournal();
      const note = keeping();
      const engine: Engine = createEngine({ adapters: [scripted([{ toolCalls: [{ name: 'note', input: {} }] }, 'done'])], journal, defaults: { model: MODEL } });
      const wf = defineWorkflow({ name: 'notes' }, async (ctx) => (await ctx.agent('go', { tools: [note.def] })).toolsetHash);
      // A journal as an older engine wrote it: no incarnation in its run:start.
      await journal.append('old', [{ v: 1, type: 'run:start', workflow: 'notes', args: null, at: new Date().toISOString() }], 0);
      const outcome = await engine.resume('old', wf).result;
      if (outcome.status !== 'completed') throw new Error(JSON.stringify(outcome));
      const identity = { workflow: 'notes', agentType: null, model: MODEL, system: null, prompt: 'go', toolsetHash: outcome.value, runId: 'old', ordinal: 0 };
      const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(h.lib.canonicalJson(identity))))].map((b) => b.toString(16).padStart(2, '0')).join('');
      expect(note.keys).toEqual([`rulvar-${digest.slice(0, 32)}-0-0`]);
    });
  });

  async function expectCode(fn: () => Promise<unknown>, codes: string[]): Promise<void> {
    try {
      await fn();
    } catch (error) {
      expect(codes).toContain((error as { code?: unknown }).code);
      return;
    }
    throw new Error('expected a refusal');
  }
}

/** A store's own claim, or the entry lease for a store without one (as the engine does it). */
async function claimOf(store: JournalStore, runId: string, request: LeaseRequest): Promise<JournalLease> {
  if (typeof store.claim === 'function') return store.claim(runId, request);
  const { entryLease } = await import('../../src/core/journal/entry-lease.js');
  return entryLease(store, runId, request);
}

function bindStore(store: JournalStore): JournalStore {
  return { load: (id) => store.load(id), append: (id, entries, n) => store.append(id, entries, n) };
}

/** The lease, its renewals held until `stalled` settles. */
function stallRenewals(lease: JournalLease, stalled: Promise<void>): JournalLease {
  return { runId: lease.runId, holder: lease.holder, load: () => lease.load(), append: (e, n) => lease.append(e, n), release: () => lease.release(), renew: () => stalled.then(() => lease.renew()) };
}
