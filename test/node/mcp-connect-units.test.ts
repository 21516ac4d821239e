/**
 * Unit tests for src/core/mcp/connect.ts on a fake clock, with McpSession.open replaced by
 * a handshake of the test's own: `timeouts.connectMs` checked from both sides, the half-open
 * connection aborted and, when it opens in the same instant, shut down; the release waited
 * for at most RELEASE_WAIT_MS before `connect.timeout`; the caller's signal forwarded and
 * its listener removed. Real servers that never finish a handshake are in the suites.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectSession, RELEASE_WAIT_MS } from '../../src/core/mcp/connect.js';
import { McpSession, type SessionOpening } from '../../src/core/mcp/session.js';

interface Handshake {
  readonly signal: AbortSignal;
  resolve(session: McpSession): void;
  reject(error: unknown): void;
}

let handshakes: Handshake[] = [];

beforeEach(() => {
  vi.useFakeTimers();
  handshakes = [];
  vi.spyOn(McpSession, 'open').mockImplementation(
    (_opening, signal) =>
      new Promise<McpSession>((resolve, reject) => {
        handshakes.push({ signal, resolve, reject });
      }),
  );
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const opening = (connectMs?: number): SessionOpening =>
  ({ sourceId: 'mcp:t', config: { transport: 'inprocess', ...(connectMs === undefined ? {} : { timeouts: { connectMs } }) } }) as unknown as SessionOpening;
const session = () => {
  const shutdown = vi.fn(() => Promise.resolve());
  return { session: { shutdown } as unknown as McpSession, shutdown };
};

/** The settled state of a promise after the fake clock moved `ms`. */
async function after<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown } | 'pending'> {
  let state: { value?: T; error?: unknown } | 'pending' = 'pending';
  promise.then((value) => (state = { value }), (error: unknown) => (state = { error }));
  await vi.advanceTimersByTimeAsync(ms);
  return state;
}

describe('connectSession', () => {
  it('without connectMs the handshake is the caller’s signal’s alone: no timer', async () => {
    const signal = new AbortController().signal;
    const pending = connectSession(opening(), signal);
    expect(handshakes[0]!.signal).toBe(signal);
    expect(vi.getTimerCount()).toBe(0);
    const { session: opened } = session();
    handshakes[0]!.resolve(opened);
    expect(await pending).toBe(opened);
  });

  it('a handshake that finishes a moment before connectMs is the session; the timer is gone', async () => {
    const controller = new AbortController();
    const pending = connectSession(opening(1_000), controller.signal);
    await vi.advanceTimersByTimeAsync(999);
    const { session: opened, shutdown } = session();
    handshakes[0]!.resolve(opened);
    expect(await pending).toBe(opened);
    expect([vi.getTimerCount(), shutdown.mock.calls.length, handshakes[0]!.signal.aborted]).toEqual([0, 0, false]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('at connectMs the handshake is aborted, and connect.timeout follows once it let go', async () => {
    const pending = connectSession(opening(1_000), new AbortController().signal);
    expect(await after(pending, 999)).toBe('pending');
    expect(handshakes[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(handshakes[0]!.signal.aborted).toBe(true);
    handshakes[0]!.reject(new Error('aborted'));
    const state = await after(pending, 0);
    expect(state).toEqual({
      error: expect.objectContaining({
        code: 'connect.timeout',
        message: 'mcp:t: the MCP handshake did not finish within timeouts.connectMs = 1000 ms; the connection was released',
      }) as unknown,
    });
  });

  it('a handshake that never lets go is waited for RELEASE_WAIT_MS, not longer', async () => {
    expect(RELEASE_WAIT_MS).toBe(6_000);
    const pending = connectSession(opening(100), new AbortController().signal);
    expect(await after(pending, 100 + RELEASE_WAIT_MS - 1)).toBe('pending');
    const state = await after(pending, 1);
    expect(state).not.toBe('pending');
    expect((state as { error: { code: string } }).error.code).toBe('connect.timeout');
  });

  it('a session that opens after the abort came too late is shut down', async () => {
    const pending = connectSession(opening(100), new AbortController().signal);
    await vi.advanceTimersByTimeAsync(100);
    const { session: late, shutdown } = session();
    handshakes[0]!.resolve(late);
    await expect(pending).rejects.toThrow(expect.objectContaining({ code: 'connect.timeout' }));
    expect(shutdown).toHaveBeenCalledOnce();
  });

  it("the caller's abort reaches the handshake, and its listener is removed after", async () => {
    const controller = new AbortController();
    const pending = connectSession(opening(1_000), controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(handshakes[0]!.signal.aborted).toBe(true);
    handshakes[0]!.reject(new Error('the caller gave up'));
    await expect(pending).rejects.toThrow('the caller gave up');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
