/**
 * What the engine waits on and reads from an adapter, bounded whatever the adapter does
 * (issue 23, items 8 and 9): any thrown value is `model.failed` naming the adapter and
 * model; a model call that never settles times out as a retryable model error; an answer
 * with more tool calls than `maxToolCallsPerTurn` runs only that many.
 */
import type { EngineOptions, Message, ModelAdapter, RunOutcome, ToolResult } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';

/** Values an adapter may throw that break naive reading: getters, traps, odd types. */
function hostileThrows(): [string, () => unknown][] {
  const trapAll = new Proxy(
    {},
    {
      get: () => {
        throw new Error('get trap');
      },
      getPrototypeOf: () => {
        throw new Error('prototype trap');
      },
      has: () => {
        throw new Error('has trap');
      },
      ownKeys: () => {
        throw new Error('keys trap');
      },
      getOwnPropertyDescriptor: () => {
        throw new Error('descriptor trap');
      },
    },
  );
  const throwingGetters = (...names: string[]) => {
    const error = new Error('plain');
    for (const name of names) {
      Object.defineProperty(error, name, {
        get() {
          throw new Error(`${name} getter`);
        },
      });
    }
    return error;
  };
  const unprintable = { toString: () => { throw new Error('toString'); } }; // prettier-ignore
  return [
    ['an Error whose retryable getter throws', () => throwingGetters('retryable')],
    ['an Error whose message getter throws', () => throwingGetters('message')],
    ['an Error whose name and code getters throw', () => throwingGetters('name', 'code')],
    ['an Error whose message is an object that cannot print', () => Object.defineProperty(new Error('x'), 'message', { value: unprintable })],
    ['a Proxy whose every trap throws', () => trapAll],
    ['an object whose toString throws', () => unprintable],
    ['an object without a prototype', () => Object.create(null) as unknown],
    ['a string', () => 'just text'],
    ['a number', () => 42],
    ['undefined', () => undefined],
    ['null', () => null],
    ['a symbol', () => Symbol('odd')],
  ];
}

export function engineBoundsSuite(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, RulvarError } = h.lib;
  const expect = h.expect;
  const agentOnce = defineWorkflow({ name: 'agent-once' }, async (ctx) => (await ctx.agent('go')).text);
  const runOnce = (options: EngineOptions): Promise<RunOutcome<unknown>> => createEngine(options).run(agentOnce, undefined).result;
  const failedWith = (outcome: RunOutcome<unknown>, code: string) => {
    if (outcome.status !== 'failed') throw new Error(`expected failed ${code}, got ${JSON.stringify(outcome)}`);
    expect(RulvarError.is(outcome.error)).toBe(true);
    expect(outcome.error.code).toBe(code);
    return outcome.error;
  };

  h.describe('engine: a hostile adapter failure is model.failed', () => {
    for (const [what, make] of hostileThrows()) {
      for (const how of ['rejected', 'thrown'] as const) {
        h.it(`${what}, ${how}: model.failed naming adapter and model, not retried`, async () => {
          let calls = 0;
          const adapter: ModelAdapter = {
            id: 'hostile',
            generate() {
              calls += 1;
              if (how === 'thrown') throw make();
              return Promise.reject(make());
            },
          };
          const error = failedWith(await runOnce({ adapters: [adapter], defaults: { model: 'hostile:some-model', retry: { baseDelayMs: 1 } } }), 'model.failed');
          expect(error.message).toMatch(/^model hostile:some-model failed: /);
          expect(calls).toBe(1);
          // The cause is the engine's own plain copy: reading it can no longer throw.
          expect(typeof String(error.cause)).toBe('string');
        });
      }
    }

    // The same values from a streaming adapter: thrown by stream() itself or by the first
    // next() (the adapter's failure, final), or midway (a cut stream: retried, then final).
    const places = [['by stream() itself', 1], ['by its first next()', 1], ['midway, after a delta', 3]] as const;
    for (const [place, attempts] of places) {
      h.it(`each hostile value thrown ${place}: model.failed naming adapter and model, after ${attempts} attempt(s)`, async () => {
        const seen: unknown[] = [];
        for (const [what, make] of hostileThrows()) {
          let calls = 0;
          const adapter: ModelAdapter = {
            id: 'hostile',
            generate: () => Promise.reject(new Error('generate is not used when the adapter streams')),
            stream() {
              calls += 1;
              if (place === 'by stream() itself') throw make();
              let sent = false;
              return {
                [Symbol.asyncIterator]: () => ({
                  next: async () => {
                    if (place === 'midway, after a delta' && !sent) return ((sent = true), { done: false, value: { type: 'text', text: 'half' } as const });
                    throw make();
                  },
                }),
              };
            },
          };
          const outcome = await runOnce({ adapters: [adapter], defaults: { model: 'hostile:some-model', retry: { baseDelayMs: 1 } } });
          const error = outcome.status === 'failed' ? outcome.error : undefined;
          seen.push({ what, code: error?.code, named: /^model hostile:some-model failed: /.test(error?.message ?? ''), calls, printable: typeof String(error?.cause) });
        }
        expect(seen).toEqual(hostileThrows().map(([what]) => ({ what, code: 'model.failed', named: true, calls: attempts, printable: 'string' })));
      });
    }

    h.it('a response object whose members are traps is model.failed too', async () => {
      const adapter: ModelAdapter = { id: 'hostile', generate: () => Promise.resolve(hostileThrows()[4]![1]() as never) };
      failedWith(await runOnce({ adapters: [adapter], defaults: { model: 'hostile:m' } }), 'model.failed');
    });

    h.it('a tool call whose input nests past 512 levels is model.failed naming the call and the bound, in every runtime; 512 levels pass', async () => {
      const nested = (depth: number, leaf: unknown = 1) => {
        let input: unknown = leaf;
        for (let i = 0; i < depth; i += 1) input = i % 2 === 0 ? { a: input } : [input];
        return input;
      };
      const answering = (input: unknown): ModelAdapter => {
        let turn = 0;
        return { id: 'hostile', generate: () => Promise.resolve(turn++ === 0 ? { text: '', toolCalls: [{ id: 'c1', name: 'lookup', input }], stopReason: 'tool_calls' } : { text: 'done', toolCalls: [], stopReason: 'end' }) };
      };
      for (const depth of [100_000, 513]) {
        const error = failedWith(await runOnce({ adapters: [answering(nested(depth))], defaults: { model: 'hostile:m' } }), 'model.failed');
        expect(error.message).toMatch(/tool call 0 whose input nests deeper than 512 levels/);
      }
      // 512 objects and arrays around a scalar: the call is taken (and answered unknown-tool).
      expect((await runOnce({ adapters: [answering(nested(512))], defaults: { model: 'hostile:m' } })).status).toBe('completed');
    });

    h.it('a workflow that throws a trapping Proxy still settles, as workflow.failed', async () => {
      const wf = defineWorkflow({ name: 'throws-proxy' }, async () => {
        throw hostileThrows()[4]![1]();
      });
      failedWith(await createEngine({ adapters: [scripted([])] }).run(wf, null).result, 'workflow.failed');
    });
  });


  h.describe('engine: maxToolCallsPerTurn', () => {
    const counter = () => {
      let runs = 0;
      const def = h.lib.tool({ name: 'count', description: 'counts', parameters: { type: 'object' }, execute: () => `run ${(runs += 1)}` });
      return { def, runs: () => runs };
    };
    /** A model whose first answer asks for `n` calls of count, then says done. */
    const asking = (n: number) =>
      scripted((request) => (request.messages.length > 1 ? 'done' : { toolCalls: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'count', input: {} })) }));
    const toolResults = (message: Message | undefined): ToolResult[] => {
      if (message?.role !== 'tool') throw new Error(`expected a tool message, got ${JSON.stringify(message)?.slice(0, 200)}`);
      return message.results;
    };
    const runWith = async (n: number, options: Partial<EngineOptions['defaults']> & { profile?: number }) => {
      const count = counter();
      const model = asking(n);
      const { profile, ...defaults } = options;
      const wf = defineWorkflow({ name: 'many-calls' }, async (ctx) => (await ctx.agent('go', { tools: [count.def], ...(profile === undefined ? {} : { agentType: 'capped' }) })).text);
      const engine = createEngine({
        adapters: [model],
        defaults: { model: 'scripted:m', ...defaults, ...(profile === undefined ? {} : { profiles: { capped: { maxToolCallsPerTurn: profile } } }) },
      });
      const outcome = await engine.run(wf, null).result;
      return { outcome, runs: count.runs(), results: toolResults(model.requests[1]?.messages.at(-1)), calls: model.calls };
    };

    h.it('an answer with 20,000 tool calls runs the default 128; every other call gets an error result the model reads', async () => {
      const { outcome, runs, results, calls } = await runWith(20_000, {});
      expect(outcome).toEqual({ status: 'completed', value: 'done' });
      expect([runs, calls, results.length]).toEqual([128, 2, 20_000]);
      expect(results[127]).toMatchObject({ callId: 'c127', isError: false, output: 'run 128' });
      expect(results[128]).toMatchObject({ callId: 'c128', toolName: 'count', isError: true, reason: 'denied' });
      expect(String(results[19_999]?.output)).toMatch(/^not run: the answer asked for 20000 tool calls and one turn runs at most 128/);
    });

    h.it('a call past the bound is journaled and announced with a deny audit naming the bound', async () => {
      const count = counter();
      const journal = h.lib.memoryJournal();
      const wf = defineWorkflow({ name: 'over' }, async (ctx) => (await ctx.agent('go', { tools: [count.def] })).text);
      const handle = createEngine({ adapters: [asking(4)], journal, defaults: { model: 'scripted:m', maxToolCallsPerTurn: 2 } }).run(wf, null);
      const audits: unknown[] = [];
      handle.on('tool:end', (event) => void audits.push(event.audit));
      expect(await handle.result).toEqual({ status: 'completed', value: 'done' });
      const over = { verdict: 'deny', layer: 'default', advisory: [], reason: 'more than 2 tool calls in one turn (maxToolCallsPerTurn)' };
      expect(audits.slice(2)).toEqual([over, over]);
      expect(audits[0]).toMatchObject({ verdict: 'allow' });
      const journaled = (await journal.load(handle.runId)).flatMap((e) => (e.type === 'tool' ? [e.audit] : []));
      expect(journaled.slice(2)).toEqual([over, over]);
    });

    h.it('exactly the default runs whole', async () => {
      const { runs, results } = await runWith(128, {});
      expect([runs, results.filter((r) => r.isError).length]).toEqual([128, 0]);
    });

    h.it('the engine default and a profile set the bound; the profile wins', async () => {
      for (const [n, options, ran] of [
        [3, { maxToolCallsPerTurn: 3 }, 3],
        [4, { maxToolCallsPerTurn: 3 }, 3],
        [4, { maxToolCallsPerTurn: 1 }, 1],
        [6, { maxToolCallsPerTurn: 2, profile: 5 }, 5],
        [5, { maxToolCallsPerTurn: 9, profile: 5 }, 5],
      ] as const) {
        const { runs, results } = await runWith(n, options);
        expect([n, runs, results.length, results.filter((r) => r.isError).length]).toEqual([n, ran, n, n - ran]);
      }
    });

    h.it('a bound that is no positive integer is refused before any model call', async () => {
      for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
        const model = asking(1);
        const outcome = await createEngine({ adapters: [model], defaults: { model: 'scripted:m', maxToolCallsPerTurn: bad } }).run(agentOnce, null).result;
        expect(failedWith(outcome, 'config.invalid_value').message).toMatch(/maxToolCallsPerTurn/);
        expect(model.calls).toBe(0);
      }
    });
  });

  h.describe('engine: modelCallMs', () => {
    /** An adapter that never answers its first `silentCalls` calls, then answers 'ok'. */
    const silent = (silentCalls: number) => {
      const calls: { signal: AbortSignal; abortedAtCall: boolean; at: number; reference: Promise<number> }[] = [];
      const adapter: ModelAdapter & { calls: typeof calls } = {
        id: 'silent',
        calls,
        generate(_request, signal) {
          // A plain timer of the bound's length, set at the same moment: the floor this load
          // gives any timer, so the engine's expiry is compared with it, not with a fixed grace.
          const reference = new Promise<number>((resolve) => setTimeout(() => resolve(Date.now()), BOUND_MS));
          calls.push({ signal, abortedAtCall: signal.aborted, at: Date.now(), reference });
          if (calls.length <= silentCalls) return new Promise<never>(() => undefined);
          return Promise.resolve({ text: 'ok', toolCalls: [], stopReason: 'end' as const });
        },
      };
      return adapter;
    };
    const BOUND_MS = 300;

    h.it('a generate() that never settles is abandoned at modelCallMs (not sooner, not much later) and its signal aborts', async () => {
      const adapter = silent(Infinity);
      // Not sooner: measured from before the run, since the engine's timer starts before generate() is called.
      const started = Date.now();
      const outcome = await runOnce({ adapters: [adapter], defaults: { model: 'silent:m', modelCallMs: BOUND_MS, retry: { maxRetries: 0 } } });
      const ended = Date.now();
      expect(failedWith(outcome, 'model.failed').message).toBe(`model silent:m failed: no answer within ${BOUND_MS} ms (modelCallMs)`);
      const [call] = adapter.calls;
      // Aborted by the expiry itself (its reason says so), not only by the run ending after it.
      expect(call?.signal.aborted).toBe(true);
      expect((call?.signal.reason as Error | undefined)?.message).toBe(`no answer within ${BOUND_MS} ms (modelCallMs)`);
      expect(ended - started).toBeGreaterThanOrEqual(BOUND_MS - 1);
      expect(Math.abs(ended - (await call!.reference))).toBeLessThan(BOUND_MS / 2);
    });

    h.it('the expiry is retryable: the next attempt answers and the run completes', async () => {
      const adapter = silent(1);
      const outcome = await runOnce({ adapters: [adapter], defaults: { model: 'silent:m', modelCallMs: BOUND_MS, retry: { maxRetries: 1, baseDelayMs: 1 } } });
      expect(outcome).toEqual({ status: 'completed', value: 'ok' });
      // The retry got a signal of its own, not the one its timed-out predecessor aborted.
      const [first, second] = adapter.calls;
      expect([first?.signal.aborted, second?.abortedAtCall, second?.signal === first?.signal]).toEqual([true, false, false]);
    });

    h.it('each call has the whole bound: a call that hangs after a fast one (a slow tool between) times out modelCallMs after it began', async () => {
      const calls: { at: number; reference: Promise<number> }[] = [];
      const adapter: ModelAdapter = {
        id: 'second',
        generate() {
          calls.push({ at: Date.now(), reference: new Promise<number>((resolve) => setTimeout(() => resolve(Date.now()), BOUND_MS)) });
          if (calls.length === 1) return Promise.resolve({ text: '', toolCalls: [{ id: 'c', name: 'wait', input: {} }], stopReason: 'tool_calls' as const });
          return new Promise<never>(() => undefined);
        },
      };
      // The second call's timer starts after the tool is done: its bound is measured from there.
      let waited = 0;
      const wait = h.lib.tool({ name: 'wait', description: 'waits', parameters: { type: 'object' }, execute: async () => (await new Promise((resolve) => setTimeout(resolve, BOUND_MS / 2)), (waited = Date.now()), 'waited') });
      const wf = defineWorkflow({ name: 'second-hangs' }, async (ctx) => (await ctx.agent('go', { tools: [wait] })).text);
      const outcome = await createEngine({ adapters: [adapter], defaults: { model: 'second:m', modelCallMs: BOUND_MS, retry: { maxRetries: 0 } } }).run(wf, null).result;
      const ended = Date.now();
      failedWith(outcome, 'model.failed');
      const second = calls[1]!;
      expect(ended - waited).toBeGreaterThanOrEqual(BOUND_MS - 1);
      expect(Math.abs(ended - (await second.reference))).toBeLessThan(BOUND_MS / 2);
    });

    h.it("a profile's modelCallMs beats the engine's", async () => {
      const adapter = silent(Infinity);
      const wf = defineWorkflow({ name: 'profiled' }, async (ctx) => (await ctx.agent('go', { agentType: 'quick' })).text);
      const engine = createEngine({
        adapters: [adapter],
        defaults: { model: 'silent:m', modelCallMs: 600_000, retry: { maxRetries: 0 }, profiles: { quick: { modelCallMs: BOUND_MS } } },
      });
      const outcome = await engine.run(wf, null).result;
      const ended = Date.now();
      failedWith(outcome, 'model.failed');
      expect(Math.abs(ended - (await adapter.calls[0]!.reference))).toBeLessThan(BOUND_MS / 2);
    });

    h.it("a profile's longer modelCallMs beats the engine's too: an answer past the engine's bound completes, a silent call ends at the profile's", async () => {
      const PROFILE_MS = 2 * BOUND_MS;
      const calls: { at: number; reference: Promise<number> }[] = [];
      // The first call answers between the two bounds; the second never does.
      const adapter: ModelAdapter = {
        id: 'patient',
        generate() {
          calls.push({ at: Date.now(), reference: new Promise<number>((resolve) => setTimeout(() => resolve(Date.now()), PROFILE_MS)) });
          if (calls.length > 1) return new Promise<never>(() => undefined);
          return new Promise((resolve) => setTimeout(() => resolve({ text: 'late but in time', toolCalls: [], stopReason: 'end' as const }), (3 * BOUND_MS) / 2));
        },
      };
      const wf = defineWorkflow({ name: 'patient' }, async (ctx) => (await ctx.agent('go', { agentType: 'patient' })).text);
      const engine = createEngine({
        adapters: [adapter],
        defaults: { model: 'patient:m', modelCallMs: BOUND_MS, retry: { maxRetries: 0 }, profiles: { patient: { modelCallMs: PROFILE_MS } } },
      });
      expect(await engine.run(wf, null).result).toEqual({ status: 'completed', value: 'late but in time' });
      const started = Date.now();
      const outcome = await engine.run(wf, null).result;
      const ended = Date.now();
      expect(failedWith(outcome, 'model.failed').message).toContain(`no answer within ${PROFILE_MS} ms (modelCallMs)`);
      const silent = calls[1]!;
      expect(ended - started).toBeGreaterThanOrEqual(PROFILE_MS - 1);
      expect(Math.abs(ended - (await silent.reference))).toBeLessThan(BOUND_MS / 2);
    });

    h.it('a modelCallMs no timer can hold is refused before any model call', async () => {
      for (const bad of [0, -5, Number.NaN, Infinity, 2 ** 31]) {
        const adapter = silent(0);
        const outcome = await runOnce({ adapters: [adapter], defaults: { model: 'silent:m', modelCallMs: bad } });
        expect(failedWith(outcome, 'config.invalid_value').message).toMatch(/modelCallMs/);
        expect(adapter.calls).toHaveLength(0);
      }
    });
  });

  h.describe('engine: retry backoff', () => {
    /**
     * An adapter failing retryably `failures` times; each failure starts a plain timer of the
     * delay the engine should wait next, the floor this load gives any timer.
     */
    const failing = (failures: number, delays: readonly number[]) => {
      const attempts: { at: number; reference?: Promise<number> }[] = [];
      const adapter: ModelAdapter = {
        id: 'flaky',
        generate() {
          const n = attempts.length;
          const delay = delays[n];
          attempts.push({ at: Date.now(), ...(delay === undefined ? {} : { reference: new Promise<number>((resolve) => setTimeout(() => resolve(Date.now()), delay)) }) });
          if (n < failures) return Promise.reject(Object.assign(new Error('overloaded'), { retryable: true }));
          return Promise.resolve({ text: 'ok', toolCalls: [], stopReason: 'end' as const });
        },
      };
      return { adapter, attempts };
    };
    /** The jitter pinned at its top (a full delay), restored afterwards. */
    const withFullJitter = async <T>(body: () => Promise<T>): Promise<T> => {
      const random = Math.random;
      Math.random = () => 0.999_999;
      try {
        return await body();
      } finally {
        Math.random = random;
      }
    };

    for (const [what, retry, delays] of [
      ['the default base of 250 ms', { maxRetries: 1 }, [250]],
      ['a base of 100 ms, doubled per retry', { maxRetries: 2, baseDelayMs: 100 }, [100, 200]],
    ] as const) {
      h.it(`waits ${what} before each retry: not sooner, and no later than a plain timer of that length`, async () => {
        const { adapter, attempts } = failing(delays.length, delays);
        const outcome = await withFullJitter(() => runOnce({ adapters: [adapter], defaults: { model: 'flaky:m', retry } }));
        expect(outcome).toEqual({ status: 'completed', value: 'ok' });
        expect(attempts).toHaveLength(delays.length + 1);
        for (let i = 0; i < delays.length; i += 1) {
          const delay = delays[i]!;
          const next = attempts[i + 1]!.at;
          const reference = await attempts[i]!.reference!;
          // Against a timer of the same length set at the failure, not against Date.now() alone:
          // a timer runs from the event loop's cached clock, which a loaded machine leaves
          // behind, so both fire a few ms sooner than the wall clock says. Which of the two
          // runs first is the runtime's choice: Chromium may run the retry's first and the
          // reference's callback only after the retry's work (seen 17 ms late under load), so
          // the floor is the earlier of the reference and the failure plus the delay, less a
          // tenth of the delay; a halved delay is still far outside it.
          const floor = Math.min(reference, attempts[i]!.at + delay);
          expect(next).toBeGreaterThanOrEqual(floor - delay / 10);
          expect(next - reference).toBeLessThan(delay / 3);
        }
      });
    }

    h.it('no backoff waits longer than 30 s, whatever the base asks for', async () => {
      // Timers asked for are recorded and run at once: the cap is the delay asked, not waited.
      const asked: number[] = [];
      const original = globalThis.setTimeout;
      globalThis.setTimeout = ((fn: () => void, ms?: number) => (asked.push(ms ?? 0), original(fn, (ms ?? 0) >= 1_000 ? 0 : ms))) as typeof setTimeout;
      try {
        const { adapter } = failing(2, []);
        const outcome = await withFullJitter(() => runOnce({ adapters: [adapter], defaults: { model: 'flaky:m', modelCallMs: 999, retry: { maxRetries: 2, baseDelayMs: 20_000 } } }));
        expect(outcome).toEqual({ status: 'completed', value: 'ok' });
      } finally {
        globalThis.setTimeout = original;
      }
      // The first retry waits its base (just under 20 s at the top of the jitter), the second is capped.
      expect(asked.filter((ms) => ms >= 10_000).map((ms) => Math.round(ms / 1_000))).toEqual([20, 30]);
    });

    h.it('the jitter takes at most half the delay off', async () => {
      const random = Math.random;
      Math.random = () => 0;
      try {
        const { adapter, attempts } = failing(1, [100]);
        expect(await runOnce({ adapters: [adapter], defaults: { model: 'flaky:m', retry: { maxRetries: 1, baseDelayMs: 200 } } })).toEqual({ status: 'completed', value: 'ok' });
        const reference = await attempts[0]!.reference!;
        expect(attempts[1]!.at).toBeGreaterThanOrEqual(reference - 10);
        expect(attempts[1]!.at - reference).toBeLessThan(50);
      } finally {
        Math.random = random;
      }
    });
  });
}
