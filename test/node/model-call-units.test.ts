/**
 * Unit tests of src/core/engine/model-call.ts, one model turn's attempts, on a fake clock
 * (the module takes its time from Date.now and setTimeout, which vitest's fake timers drive):
 * how many attempts each policy allows (2 retries by default, 10 at most), the backoff from
 * both sides (base × 2^n × a jitter in [0.5, 1), never past 30 s), the per-attempt bound
 * (the attempt's signal aborts at timeoutMs, not before, and the attempt is retried), what is
 * never retried (a non-retryable error, a malformed answer), and the run's abort at every
 * point. The engine suites reach these through whole runs with 1 ms bases and loose bounds.
 */
import process from 'node:process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callModel, CallSignals } from '../../src/core/engine/model-call.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../../src/core/model/types.js';

const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const ANSWER: ModelResponse = { text: 'ok', toolCalls: [], stopReason: 'end' };
const retryable = () => Object.assign(new Error('busy'), { retryable: true });

/** An adapter whose attempt n answers `script[n]` (the last entry from then on): a function's throw, or its value. */
function adapterOf(script: ((signal: AbortSignal) => unknown)[]): ModelAdapter & { calls: number[]; signals: AbortSignal[] } {
  const calls: number[] = [];
  const signals: AbortSignal[] = [];
  return {
    id: 'unit',
    calls,
    signals,
    generate(_request, signal) {
      calls.push(Date.now());
      signals.push(signal);
      const step = script[Math.min(calls.length - 1, script.length - 1)] as (signal: AbortSignal) => unknown;
      return Promise.resolve().then(() => step(signal)) as Promise<ModelResponse>;
    },
  };
}
const fail = () => {
  throw retryable();
};
const answer = () => ANSWER;
const never = () => new Promise(() => undefined);

let signals: CallSignals;
let run: AbortController;
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  run = new AbortController();
  signals = new CallSignals(run.signal);
});
afterEach(() => {
  signals.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Settles `promise` by running the fake clock until it settles (at most `ms`). */
async function settle<T>(promise: Promise<T>, ms = 600_000): Promise<{ value?: T; error?: unknown }> {
  let outcome: { value?: T; error?: unknown } | undefined;
  promise.then((value) => (outcome = { value }), (error: unknown) => (outcome = { error }));
  for (let at = 0; outcome === undefined && at < ms; at += 10) await vi.advanceTimersByTimeAsync(10);
  if (outcome === undefined) throw new Error(`not settled within ${ms} ms of fake time`);
  return outcome;
}

describe('attempts', () => {
  it('a retryable failure is tried twice more by default, then fails as model.failed', async () => {
    const adapter = adapterOf([fail]);
    const { error } = await settle(callModel(adapter, REQUEST, signals, {}, 60_000));
    expect(error).toMatchObject({ code: 'model.failed' });
    expect(adapter.calls).toHaveLength(3);
  });

  it('maxRetries is obeyed, and capped at 10 whatever is asked', async () => {
    const three = adapterOf([fail]);
    await settle(callModel(three, REQUEST, signals, { maxRetries: 3, baseDelayMs: 1 }, 60_000));
    expect(three.calls).toHaveLength(4);
    const capped = adapterOf([fail]);
    await settle(callModel(capped, REQUEST, new CallSignals(run.signal), { maxRetries: 1_000, baseDelayMs: 1 }, 60_000));
    expect(capped.calls).toHaveLength(11);
  });

  it('maxRetries 0 makes one attempt; a retry that answers ends the turn', async () => {
    const once = adapterOf([fail]);
    await settle(callModel(once, REQUEST, signals, { maxRetries: 0 }, 60_000));
    expect(once.calls).toHaveLength(1);
    const second = adapterOf([fail, answer]);
    expect(await settle(callModel(second, REQUEST, new CallSignals(run.signal), { baseDelayMs: 1 }, 60_000))).toEqual({ value: ANSWER });
    expect(second.calls).toHaveLength(2);
  });

  it('a failure that is not retryable, and an answer that is no response, are never tried again', async () => {
    const plain = adapterOf([
      () => {
        throw new Error('bad request');
      },
    ]);
    expect((await settle(callModel(plain, REQUEST, signals, { maxRetries: 5 }, 60_000))).error).toMatchObject({ code: 'model.failed' });
    expect(plain.calls).toHaveLength(1);
    const malformed = adapterOf([() => ({ text: 1 })]);
    expect((await settle(callModel(malformed, REQUEST, new CallSignals(run.signal), { maxRetries: 5 }, 60_000))).error).toMatchObject({ code: 'model.failed' });
    expect(malformed.calls).toHaveLength(1);
  });
});

describe('backoff', () => {
  it('waits base × 2^n × at least a half: not a millisecond less', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const adapter = adapterOf([fail]);
    void callModel(adapter, REQUEST, signals, { maxRetries: 2, baseDelayMs: 1_000 }, 60_000).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(499);
    expect(adapter.calls).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.calls).toEqual([0, 500]);
    await vi.advanceTimersByTimeAsync(999);
    expect(adapter.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.calls).toEqual([0, 500, 1_500]);
  });

  it('and under base × 2^n in full: the jitter never reaches the doubled delay', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const adapter = adapterOf([fail]);
    void callModel(adapter, REQUEST, signals, { maxRetries: 2, baseDelayMs: 1_000 }, 60_000).catch(() => undefined);
    // 999.5 ms and 1,999 ms; the fake clock runs a timer at the whole millisecond before.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(adapter.calls).toEqual([0, 999]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(adapter.calls).toHaveLength(3);
    expect((adapter.calls[2] as number) - (adapter.calls[1] as number)).toBeGreaterThanOrEqual(1_998);
    expect((adapter.calls[2] as number) - (adapter.calls[1] as number)).toBeLessThan(2_000);
  });

  it('never waits more than 30 s between attempts, whatever the base', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const adapter = adapterOf([fail]);
    void callModel(adapter, REQUEST, signals, { maxRetries: 1, baseDelayMs: 10_000_000 }, 60_000).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(adapter.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.calls).toEqual([0, 30_000]);
  });
});

describe('the bound on one attempt', () => {
  it("aborts the attempt's signal at timeoutMs, not before, and retries it with a fresh one", async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const adapter = adapterOf([never, answer]);
    const turn = callModel(adapter, REQUEST, signals, { baseDelayMs: 100 }, 5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(adapter.signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.signals[0]?.aborted).toBe(true);
    expect(adapter.signals[0]?.reason).toMatchObject({ message: 'no answer within 5000 ms (modelCallMs)' });
    await vi.advanceTimersByTimeAsync(50);
    expect(adapter.calls).toEqual([0, 5_050]);
    expect(adapter.signals[1]?.aborted).toBe(false);
    expect(await settle(turn)).toEqual({ value: ANSWER });
  });

  it('each attempt gets the whole bound: a timer armed for the first is re-armed, not reused', async () => {
    const adapter = adapterOf([answer, never]);
    expect(await settle(callModel(adapter, REQUEST, signals, {}, 1_000))).toEqual({ value: ANSWER });
    await vi.advanceTimersByTimeAsync(30);
    // A second call of the same agent 30 ms later: its bound runs from its own start, so the
    // timer armed for the first one runs 30 ms early for it and must wait again.
    void callModel(adapter, REQUEST, signals, { maxRetries: 0 }, 1_000).catch(() => undefined);
    const started = Date.now();
    await vi.advanceTimersByTimeAsync(999);
    expect(adapter.signals[1]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect([adapter.signals[1]?.aborted, Date.now() - started]).toEqual([true, 1_000]);
  });

  it('keeps a Node process alive only while a call is in flight', async () => {
    vi.useRealTimers();
    const live = new CallSignals(run.signal);
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    let release: (value: ModelResponse) => void = () => undefined;
    const adapter: ModelAdapter = { id: 'unit', generate: () => new Promise((resolve) => (release = resolve)) };
    const turn = callModel(adapter, REQUEST, live, {}, 60_000);
    expect(timers()).toBe(before + 1);
    release(ANSWER);
    await turn;
    expect(timers()).toBe(before);
    // The next call of the agent reuses the timer: it holds the process again while in flight.
    const next = callModel(adapter, REQUEST, live, {}, 60_000);
    expect(timers()).toBe(before + 1);
    release(ANSWER);
    await next;
    expect(timers()).toBe(before);
    live.close();
  });
});

describe("the run's abort", () => {
  it('before the call: no attempt; during backoff: no further attempt; both as run.aborted', async () => {
    const adapter = adapterOf([fail]);
    const aborted = new AbortController();
    aborted.abort();
    expect((await settle(callModel(adapter, REQUEST, new CallSignals(aborted.signal), {}, 1_000))).error).toMatchObject({ code: 'run.aborted', message: 'the run was aborted' });
    expect(adapter.calls).toHaveLength(0);
    const turn = callModel(adapter, REQUEST, signals, { baseDelayMs: 10_000 }, 60_000);
    await vi.advanceTimersByTimeAsync(100);
    run.abort();
    expect((await settle(turn, 100)).error).toMatchObject({ code: 'run.aborted' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(adapter.calls).toHaveLength(1);
  });

  it("reaches the attempt in flight through its signal", async () => {
    const adapter = adapterOf([never]);
    void callModel(adapter, REQUEST, signals, {}, 60_000).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(10);
    run.abort(new Error('stop'));
    expect(adapter.signals[0]?.aborted).toBe(true);
  });
});
