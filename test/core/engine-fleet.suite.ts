/**
 * The fleet's engine side (spec/runtime.md, "Postgres and workers"; issue 26 items 2 and 3):
 * `engine.pending()` with no run id is every open approval of the store in a stable order,
 * bounded; `engine.work()` resumes every run with work (a resolution made elsewhere, a passed
 * deadline, a holder whose lease ended), never a run another engine holds or of a workflow
 * it was not given, at most `concurrency` at once, and returns promptly when stopped. Each
 * time bound is checked from both sides. Run per store: the memory store here, the file and
 * Postgres stores by test/node/engine-fleet.test.ts; a store that cannot list runs refuses.
 */
import type { Engine, JournalEntry, JournalStore, PendingApproval, ToolDef, Workflow } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import { fakeDurableObjectStorage } from './durable-object-storage-fake.js';
import type { SuiteHarness } from './harness.js';
import { caught, sleep, until, within } from './helpers.js';

const MODEL = 'scripted:m';
const ASK = { toolCalls: [{ name: 'pay', input: { amount: 5 } }] };

/** A store to run the suite on: `another()` is a second process's view of the same backing. */
export interface FleetStore {
  readonly name: string;
  /** Whether the store wakes watchers (then pollMs does not apply). */
  readonly watch: boolean;
  open(): Promise<{ store: JournalStore; another(): Promise<JournalStore> }>;
}

export function engineFleetSuite(h: SuiteHarness, stores?: readonly FleetStore[]): void {
  const { createEngine, defineWorkflow, tool, memoryJournal, durableObjectJournal, RulvarError } = h.lib;
  const expect = h.expect;
  const flavours = stores ?? [
    {
      name: 'memoryJournal',
      watch: false,
      open: async () => {
        const store = memoryJournal();
        return { store, another: async () => store };
      },
    },
  ];

  /** One engine with its own model and pay tool, so each side's effects are counted apart. */
  const side = (journal: JournalStore, opts: { leaseMs?: number; deadlineMs?: number; timeoutAllow?: boolean; pay?: (input: unknown) => unknown } = {}) => {
    const paid: unknown[] = [];
    const pay: ToolDef = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: async (input: unknown) => (paid.push(input), opts.pay === undefined ? 'paid' : await opts.pay(input)) });
    const model = scripted([ASK, 'done']);
    const wf = defineWorkflow({ name: 'payer' }, async (ctx) => (await ctx.agent('pay', { tools: [pay] })).text);
    const permissions = { ...(opts.deadlineMs === undefined ? {} : { approvalDeadlineMs: opts.deadlineMs }), ...(opts.timeoutAllow === true ? { approvalTimeoutDecision: 'allow' as const } : {}) };
    const engine = createEngine({ adapters: [model], journal, defaults: { model: MODEL, permissions }, ...(opts.leaseMs === undefined ? {} : { leaseMs: opts.leaseMs }) });
    return { engine, model, paid, wf: wf as Workflow<never, unknown> };
  };
  const suspend = async (s: ReturnType<typeof side>, runId?: string): Promise<PendingApproval> => {
    const outcome = await s.engine.run(s.wf, null as never, runId === undefined ? {} : { runId }).result;
    if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${JSON.stringify(outcome)}`);
    return outcome.approvals[0]!;
  };
  /** A run whose two agents ask at once: tool "one", then tool "two". */
  const twoAsks = async (store: JournalStore, runId: string) => {
    const asker = (name: string) => tool({ name, description: name, parameters: { type: 'object' }, needsApproval: true, execute: () => 'ok' });
    const model = scripted((request) => {
      const first = request.messages[0];
      return { toolCalls: [{ name: first?.role === 'user' && first.text === 'first' ? 'one' : 'two', input: {} }] };
    });
    const engine = createEngine({ adapters: [model], journal: store, defaults: { model: MODEL } });
    const wf = defineWorkflow({ name: 'two' }, async (ctx) => Promise.all([ctx.agent('first', { tools: [asker('one')] }), ctx.agent('second', { tools: [asker('two')] })]));
    const outcome = await engine.run(wf, null, { runId }).result;
    if (outcome.status !== 'suspended' || outcome.approvals.length !== 2) throw new Error(`expected two asks, got ${JSON.stringify(outcome)}`);
  };
  /** A store's methods bound to it, to wrap one of them. */
  const bound = (store: JournalStore): JournalStore => ({
    load: (id) => store.load(id),
    append: (id, entries, n) => store.append(id, entries, n),
    ...(store.claim === undefined ? {} : { claim: store.claim.bind(store) }),
    ...(store.runs === undefined ? {} : { runs: store.runs.bind(store) }),
    ...(store.watch === undefined ? {} : { watch: store.watch.bind(store) }),
  });
  const ended = async (store: JournalStore, runId: string) => (await store.load(runId)).some((e) => e.type === 'run:end');
  const resolutions = async (store: JournalStore, runId: string) =>
    (await store.load(runId)).filter((e): e is Extract<JournalEntry, { type: 'resolution' }> => e.type === 'resolution').map((e) => `${e.decision} by ${e.by}`);
  /** Starts `engine.work`, returning how to stop it and when it resolved. */
  const working = (engine: Engine, wf: Workflow<never, unknown>, extra: { concurrency?: number; pollMs?: number } = {}) => {
    const controller = new AbortController();
    let stoppedAt: number | undefined;
    const done = engine.work({ workflows: [wf], signal: controller.signal, ...extra }).then(() => (stoppedAt = Date.now()));
    return {
      done,
      stoppedAt: () => stoppedAt,
      stop: async () => {
        controller.abort();
        await done;
      },
    };
  };
  const waitFor = async (check: () => Promise<boolean>, what: string, timeoutMs: number) => {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
    return Date.now() - started;
  };

  for (const flavour of flavours) {
    h.describe(`engine fleet: ${flavour.name}`, () => {
      h.it('pending() lists every open approval of the store: by run id, then in the order asked; resolved and ended ones are not listed', async () => {
        const { store, another } = await flavour.open();
        const a = side(store);
        await twoAsks(store, 'b-run');
        await suspend(a, 'c-run');
        const resolvedKey = (await suspend(a, 'a-run')).key;
        await a.engine.resolveExternal('a-run', resolvedKey, 'allow');
        await suspend(a, 'd-run');
        await a.engine.resume('d-run', a.wf).result.then(() => undefined);
        const listed = await a.engine.pending();
        // b-run's two agents ask at once: the order asked is the order their approvals were journaled.
        const asked = (await store.load('b-run')).flatMap((e) => (e.type === 'approval' ? [['b-run', e.toolName]] : []));
        expect(asked.map(([, name]) => name).sort()).toEqual(['one', 'two']);
        expect(listed.map((p) => [p.runId, p.toolName])).toEqual([
          ...asked,
          ['c-run', 'pay'],
          ['d-run', 'pay'],
        ]);
        // Stable: the same again, from another engine over another view of the store.
        const again = await side(await another()).engine.pending();
        expect(again).toEqual(listed);
        // Resolved and resumed: no longer listed.
        await a.engine.resolveExternal('d-run', listed[3]!.key, 'deny');
        await a.engine.resume('d-run', a.wf).result;
        expect((await a.engine.pending()).map((p) => p.runId)).toEqual(['b-run', 'b-run', 'c-run']);
      });

      h.it('pending() closes passed deadlines by their timeout first (announced), and lists only what is still open', async () => {
        const { store } = await flavour.open();
        const late = side(store, { deadlineMs: 40 });
        const open = side(store);
        await suspend(late, 'late');
        await suspend(open, 'open');
        await sleep(80);
        const announced: string[] = [];
        open.engine.on('approval:resolved', (event) => announced.push(`${event.runId} ${event.decision} by ${event.by}`));
        expect((await open.engine.pending()).map((p) => p.runId)).toEqual(['open']);
        expect(announced).toEqual(['late deny by timeout']);
        expect(await resolutions(store, 'late')).toEqual(['deny by timeout']);
      });

      h.it('pending() returns at most 1,000 approvals, the first in its order, however many runs wait', async () => {
        const { store } = await flavour.open();
        const a = side(store);
        await twoAsks(store, 'seed');
        const entries = await store.load('seed');
        // Two approvals a run, so the thousandth falls inside a batch of loads.
        const ids = Array.from({ length: 505 }, (_, i) => `r${String(i).padStart(5, '0')}`);
        for (let i = 0; i < ids.length; i += 50) await Promise.all(ids.slice(i, i + 50).map((id) => store.append(id, entries, 0)));
        const listed = await a.engine.pending();
        expect(listed).toHaveLength(1_000);
        expect(listed.map((p) => `${p.runId} ${p.toolName}`)).toEqual(ids.slice(0, 500).flatMap((id) => [`${id} one`, `${id} two`]));
      }, 60_000);

      h.it('work() resumes a run whose approval another engine resolved: at its next poll, pollMs after the last (or at once on a watched store)', async () => {
        const { store, another } = await flavour.open();
        const starter = side(store);
        const { runId, key } = await suspend(starter);
        // The worker's view of the store, telling when it loads the run.
        const loads: number[] = [];
        const seen = await another();
        const watched: JournalStore = { ...bound(seen), load: (id) => (id === runId && loads.push(Date.now()), seen.load(id)) };
        const worker = side(watched);
        const pollMs = flavour.watch ? 60_000 : 800;
        const w = working(worker.engine, worker.wf, { pollMs });
        try {
          // Its first sweep has looked at the run (suspended) and left it.
          await until(() => loads.length >= 1, 'the first sweep to load the run');
          await sleep(20);
          expect(worker.model.calls).toBe(0);
          await side(await another()).engine.resolveExternal(runId, key, 'allow');
          const took = await waitFor(() => ended(store, runId), 'the worker to finish the run', flavour.watch ? 1_500 : within(pollMs));
          if (flavour.watch) expect(took).toBeLessThan(1_500);
          else {
            // Nothing told this worker: the next sweep found it, pollMs after the first.
            expect(loads[1]! - loads[0]!).toBeGreaterThanOrEqual(pollMs - 10);
            expect(loads[1]! - loads[0]!).toBeLessThan(within(pollMs));
          }
          expect([worker.paid.length, worker.model.calls, starter.paid.length]).toEqual([1, 1, 0]);
        } finally {
          await w.stop();
        }
      });

      h.it('work() wakes at once for an approval its own engine resolves, whatever pollMs', async () => {
        const { store, another } = await flavour.open();
        const { runId, key } = await suspend(side(store));
        const worker = side(await another());
        const w = working(worker.engine, worker.wf, { pollMs: 60_000 });
        try {
          await sleep(150);
          await worker.engine.resolveExternal(runId, key, 'allow');
          await waitFor(() => ended(store, runId), 'the run to finish', 1_500);
          expect(worker.paid).toHaveLength(1);
        } finally {
          await w.stop();
        }
      });

      h.it('work() applies a passed deadline\'s journaled decision when it passes: not before, and soon after', async () => {
        const { store, another } = await flavour.open();
        const deadlineMs = 600;
        const starter = side(store, { deadlineMs, timeoutAllow: true });
        const askedAt = Date.now();
        const { runId } = await suspend(starter);
        const worker = side(await another());
        const w = working(worker.engine, worker.wf, { pollMs: 60_000 });
        try {
          await sleep(Math.max(0, deadlineMs - 250 - (Date.now() - askedAt)));
          expect([await ended(store, runId), worker.paid.length]).toEqual([false, 0]);
          await waitFor(() => ended(store, runId), 'the timed-out run to finish', within(deadlineMs));
          expect(Date.now() - askedAt).toBeGreaterThanOrEqual(deadlineMs - 10);
          expect(Date.now() - askedAt).toBeLessThan(within(deadlineMs) + 150);
          expect(await resolutions(store, runId)).toEqual(['allow by timeout']);
          expect(worker.paid).toHaveLength(1);
        } finally {
          await w.stop();
        }
      });

      h.it('work() takes a run whose holder stopped once its lease ends, not before; a run another engine holds it never touches', async () => {
        const { store, another } = await flavour.open();
        const starter = side(store);
        const { runId, key } = await suspend(starter);
        await starter.engine.resolveExternal(runId, key, 'allow');
        const ghostStore = await another();
        const leaseMs = 700;
        await ghostStore.claim!(runId, { holder: 'a holder that died', ms: leaseMs });
        const claimedAt = Date.now();
        const worker = side(await another());
        const w = working(worker.engine, worker.wf, { pollMs: 100 });
        try {
          await sleep(Math.max(0, leaseMs - 250 - (Date.now() - claimedAt)));
          expect([worker.model.calls, worker.paid.length, await ended(store, runId)]).toEqual([0, 0, false]);
          await waitFor(() => ended(store, runId), 'the worker to take the run over', within(leaseMs) + 1_000);
          expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(leaseMs - 10);
          expect([worker.model.calls, worker.paid.length]).toEqual([1, 1]);
        } finally {
          await w.stop();
        }
      });

      h.it('work() never acts on a run a live engine holds, and leaves a run of a workflow it was not given alone', async () => {
        const { store, another } = await flavour.open();
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const holder = side(store, { pay: () => gate.then(() => 'paid') });
        const { runId, key } = await suspend(holder);
        await holder.engine.resolveExternal(runId, key, 'allow');
        const held = holder.engine.resume(runId, holder.wf);
        await until(() => holder.paid.length === 1, 'the holder to run the tool');
        // A run of another workflow, resolved and waiting.
        const other = side(store);
        const otherWf = defineWorkflow({ name: 'other' }, async (ctx) => (await ctx.agent('x', { tools: [tool({ name: 'pay', description: 'p', parameters: { type: 'object' }, needsApproval: true, execute: () => 'x' })] })).text);
        const foreign = await other.engine.run(otherWf, null).result;
        if (foreign.status !== 'suspended') throw new Error('expected suspended');
        await other.engine.resolveExternal(foreign.approvals[0]!.runId, foreign.approvals[0]!.key, 'allow');
        const worker = side(await another());
        const w = working(worker.engine, worker.wf, { pollMs: 50 });
        try {
          await sleep(600);
          expect([worker.model.calls, worker.paid.length]).toEqual([0, 0]);
          release();
          expect(await held.result).toEqual({ status: 'completed', value: 'done' });
          await sleep(300);
          expect([worker.model.calls, worker.paid.length, await ended(store, foreign.approvals[0]!.runId)]).toEqual([0, 0, false]);
        } finally {
          release();
          await w.stop();
        }
      });

      h.it('work() resumes at most `concurrency` runs at once, and every one of them', async () => {
        const { store, another } = await flavour.open();
        const starter = side(store);
        const keys: PendingApproval[] = [];
        for (let i = 0; i < 6; i += 1) keys.push(await suspend(starter));
        for (const { runId, key } of keys) await starter.engine.resolveExternal(runId, key, 'allow');
        let now = 0;
        let most = 0;
        const worker = side(await another(), {
          pay: async () => {
            now += 1;
            most = Math.max(most, now);
            await sleep(80);
            now -= 1;
            return 'paid';
          },
        });
        const w = working(worker.engine, worker.wf, { pollMs: 50, concurrency: 2 });
        try {
          for (const { runId } of keys) await waitFor(() => ended(store, runId), 'every run to finish', 10_000);
          expect([most, worker.paid.length]).toEqual([2, 6]);
        } finally {
          await w.stop();
        }
      });

      h.it('work() resolves promptly when its signal aborts, with the runs it had in flight settled (their leases free)', async () => {
        const { store, another } = await flavour.open();
        const starter = side(store);
        const { runId, key } = await suspend(starter);
        await starter.engine.resolveExternal(runId, key, 'allow');
        const worker = side(await another(), { pay: () => new Promise(() => undefined) });
        const w = working(worker.engine, worker.wf, { pollMs: 50 });
        await until(() => worker.paid.length === 1, 'the worker to be inside the tool', 5_000);
        const abortedAt = Date.now();
        await w.stop();
        expect(w.stoppedAt()! - abortedAt).toBeLessThan(1_000);
        // Its lease was released: another engine takes the run at once.
        const next = side(await another());
        expect(await next.engine.resume(runId, next.wf).result).toEqual({ status: 'completed', value: 'done' });
        expect(next.paid).toHaveLength(1);
      });
    });
  }

  h.describe('engine fleet: stores that cannot list their runs', () => {
    const unlisted: [string, () => JournalStore][] = [
      ['durableObjectJournal', () => durableObjectJournal(fakeDurableObjectStorage())],
      ['a store without runs()', () => {
        const inner = memoryJournal();
        return { load: (id) => inner.load(id), append: (id, e, n) => inner.append(id, e, n) };
      }],
    ];
    for (const [name, make] of unlisted) {
      h.it(`${name}: pending() and work() refuse with journal.cannot_list, reading nothing`, async () => {
        const engine = side(make()).engine;
        for (const attempt of [() => engine.pending(), () => engine.work({ workflows: [], signal: new AbortController().signal })]) {
          const error = await caught(attempt);
          expect([RulvarError.is(error), (error as { code?: string }).code]).toEqual([true, 'journal.cannot_list']);
        }
      });
    }
    h.it('work() refuses bad options with a ConfigError', async () => {
      const engine = side(memoryJournal()).engine;
      const signal = new AbortController().signal;
      const wf = side(memoryJournal()).wf;
      for (const options of [{ workflows: [wf] }, { signal }, { workflows: [wf, wf], signal }, { workflows: [wf], signal, concurrency: 0 }, { workflows: [wf], signal, pollMs: 1 }]) {
        const error = await caught(() => engine.work(options as never));
        expect(h.lib.ConfigError.is(error)).toBe(true);
      }
    });
  });
}
