/**
 * Unit tests for src/core/mcp/progress-watch.ts on a fake clock: each tools/call's
 * progressToken (unique, unguessable across connections), the reports that pass (a known
 * token, progress moving forward) and those dropped without a word, the idle window each
 * passing report restarts and nothing else does, checked from both sides, and the request
 * copy that carries the token beside the request's own `_meta`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressWatches, withProgressToken } from '../../src/core/mcp/progress-watch.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('tokens', () => {
  it('each call gets its own token; two connections never share one', () => {
    const one = new ProgressWatches();
    const two = new ProgressWatches();
    const tokens = [one.start({}, () => {}), one.start({}, () => {}), two.start({}, () => {})];
    expect(new Set(tokens).size).toBe(3);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}-1$/);
    expect(tokens[1]).toMatch(/-2$/);
    expect(tokens[2]!.slice(0, 36)).not.toBe(tokens[0]!.slice(0, 36));
  });
});

describe('reports', () => {
  it('a report moving forward reaches the listener with total and message as sent', () => {
    const heard: unknown[][] = [];
    const watches = new ProgressWatches();
    const token = watches.start({ onProgress: (...report) => heard.push(report) }, () => {});
    watches.notified({ progressToken: token, progress: 1, total: 'ten', message: 7 });
    watches.notified({ progressToken: token, progress: 1 });
    watches.notified({ progressToken: token, progress: 0.5 });
    watches.notified({ progressToken: token, progress: 2.5, total: 10, message: 'half' });
    expect(heard).toEqual([
      [1, 'ten', 7],
      [2.5, 10, 'half'],
    ]);
  });

  it.each([
    ['no params', undefined],
    ['params that are a list', []],
    ['an unknown token', { progressToken: 'nope', progress: 1 }],
    ['a numeric token', { progressToken: 1, progress: 1 }],
    ['no progress', { progressToken: 'T' }],
    ['a string progress', { progressToken: 'T', progress: '1' }],
    ['NaN', { progressToken: 'T', progress: Number.NaN }],
    ['Infinity', { progressToken: 'T', progress: Number.POSITIVE_INFINITY }],
  ])('%s is dropped and restarts nothing', (_name, params) => {
    const heard: unknown[] = [];
    const expired: string[] = [];
    const watches = new ProgressWatches();
    const token = watches.start({ onProgress: (progress) => heard.push(progress), idleMs: 100 }, (why) => expired.push(why));
    const sent = params !== undefined && !Array.isArray(params) && params.progressToken === 'T' ? { ...params, progressToken: token } : params;
    vi.advanceTimersByTime(60);
    watches.notified(sent);
    vi.advanceTimersByTime(40);
    expect([heard, expired.length]).toEqual([[], 1]);
  });

  it("a report after stop is dropped; a throwing listener is the caller's, and the next report still counts", () => {
    const heard: number[] = [];
    const watches = new ProgressWatches();
    const token = watches.start({
      onProgress: (progress) => {
        heard.push(progress);
        if (progress === 1) throw new Error('listener');
      },
    }, () => {});
    expect(() => watches.notified({ progressToken: token, progress: 1 })).not.toThrow();
    watches.notified({ progressToken: token, progress: 2 });
    watches.stop(token);
    watches.notified({ progressToken: token, progress: 3 });
    expect(heard).toEqual([1, 2]);
  });

  it('a call with neither a listener nor an idle window keeps nothing', () => {
    const watches = new ProgressWatches();
    const token = watches.start({}, () => {});
    expect(() => watches.notified({ progressToken: token, progress: 1 })).not.toThrow();
    watches.stop(token);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the idle window (resetOnProgress)', () => {
  it('expires at its ms, not before, naming the bound', () => {
    const expired: string[] = [];
    new ProgressWatches().start({ idleMs: 100 }, (why) => expired.push(why));
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['the server reported no progress for 100 ms (timeouts.callMs, resetOnProgress)']);
  });

  it('the first window is shortened by what a reconnect spent, never below 1 ms', () => {
    const expired: number[] = [];
    const watches = new ProgressWatches();
    watches.start({ idleMs: 100, spentMs: 30 }, () => expired.push(Date.now()));
    watches.start({ idleMs: 100, spentMs: 500 }, () => expired.push(Date.now()));
    const start = Date.now();
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([start + 1]);
    vi.advanceTimersByTime(68);
    expect(expired).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([start + 1, start + 70]);
  });

  it('each passing report restarts a whole window, from both sides', () => {
    const expired: number[] = [];
    const watches = new ProgressWatches();
    const start = Date.now();
    const token = watches.start({ idleMs: 100, spentMs: 50 }, () => expired.push(Date.now() - start));
    vi.advanceTimersByTime(40);
    watches.notified({ progressToken: token, progress: 1 });
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([140]);
  });

  it('stop clears the window; stopping a token never watched, or twice, is harmless', () => {
    const expired: string[] = [];
    const watches = new ProgressWatches();
    const token = watches.start({ idleMs: 100 }, (why) => expired.push(why));
    watches.stop('never-sent');
    watches.stop(token);
    watches.stop(token);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a listener with no idle window starts no timer', () => {
    const watches = new ProgressWatches();
    const token = watches.start({ onProgress: () => {} }, () => {});
    watches.notified({ progressToken: token, progress: 1 });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('withProgressToken', () => {
  it('adds _meta.progressToken to a request with no params, or params with no _meta', () => {
    expect(withProgressToken({ method: 'tools/call' }, 'T')).toEqual({ method: 'tools/call', params: { _meta: { progressToken: 'T' } } });
    expect(withProgressToken({ method: 'tools/call', params: { name: 'x' } }, 'T')).toEqual({ method: 'tools/call', params: { _meta: { progressToken: 'T' }, name: 'x' } });
  });

  it("keeps the request's own _meta beside the token, which wins over one already there; the original is untouched", () => {
    const request = { method: 'tools/call', params: { name: 'x', _meta: { key: 'k', progressToken: 'theirs' } } };
    const copy = withProgressToken(request, 'T');
    expect(copy).toEqual({ method: 'tools/call', params: { name: 'x', _meta: { key: 'k', progressToken: 'T' } } });
    expect(request.params._meta).toEqual({ key: 'k', progressToken: 'theirs' });
    expect(copy.params).not.toBe(request.params);
  });

  it('a _meta that is no object is replaced by the token alone', () => {
    expect(withProgressToken({ method: 'm', params: { _meta: 'odd' } }, 'T').params).toEqual({ _meta: { progressToken: 'T' } });
    expect(withProgressToken({ method: 'm', params: { _meta: ['a'] } }, 'T').params).toEqual({ _meta: { progressToken: 'T' } });
  });
});
