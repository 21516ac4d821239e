/**
 * Bounds around the handshake, on fake timers, so each is checked to the millisecond from
 * both sides (still pending just before the bound, settled just after it):
 *  - the handshake's last step, the `notifications/initialized` POST, is bounded even when the
 *    host set no bound at all: by the SDK's default request timeout (60 s);
 *  - a call that reconnects first spends from callMs, and its request gets what is left;
 *  - discoveryMs counts from tools(), so a slow handshake before a cold sweep counts against it.
 * (The shared bounds suite checks the same bounds with real clocks in every runtime.)
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { ConfigError, mcp, SourceError, type ToolDef } from '../../src/node/index.js';
import { intercept, never, type Exchange } from '../fixtures/hostile-wire.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Settles `work` into a value the test can poll while it advances the clock. */
function watch<T>(work: Promise<T>): { readonly settled: () => T | 'pending'; readonly done: Promise<T> } {
  let value: T | 'pending' = 'pending';
  void work.then((v) => (value = v));
  return { settled: () => value, done: work };
}

const delayed = (ms: number, answer: () => Promise<Response>): Promise<Response> => new Promise((resolve) => setTimeout(resolve, ms)).then(answer);

function workbenchOverHttp(rule: (exchange: Exchange, inner: (exchange: Exchange) => Promise<Response>) => Promise<Response> | undefined) {
  const endpoint = createMcpEndpoint(createWorkbenchServer);
  const pass = (exchange: Exchange) => endpoint.fetch(exchange.request.url, { method: 'POST', headers: exchange.request.headers, body: exchange.request.clone().body, duplex: 'half' } as RequestInit);
  const fetch = intercept(endpoint.fetch, (exchange) => rule(exchange, pass));
  return { endpoint, fetch };
}

const callOf = (tool: ToolDef) => tool.execute({}, { callId: 'c1', toolName: tool.name, signal: new AbortController().signal });

it('a notifications/initialized that is never answered fails the connect after the default 60 s', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const { fetch } = workbenchOverHttp((exchange) => (exchange.method === 'notifications/initialized' ? never(exchange.request.signal) : undefined));
  const source = mcp({ transport: 'streamable-http', url: 'https://wire.test/mcp', http: { fetch }, timeouts: { listMs: 1_000, callMs: 1_000 } });
  const listing = watch(source.tools().then(() => 'resolved', (error: unknown) => error));
  await vi.advanceTimersByTimeAsync(59_000);
  expect(listing.settled()).toBe('pending');
  await vi.advanceTimersByTimeAsync(1_500);
  const error = await listing.done;
  expect(SourceError.is(error)).toBe(true);
  expect((error as SourceError).code).toBe('source.unavailable');
  expect((error as Error).message).toContain('notifications/initialized within 60000 ms');
  expect(fetch.seen.some((e) => e.method === 'tools/list')).toBe(false);
  const closing = source.close();
  await vi.advanceTimersByTimeAsync(10_000);
  await closing;
});

it('a call that reconnects slowly gets what is left of callMs for its request, not callMs again', async () => {
  // The second session (the reconnect) is slow to open, and its calls never answer.
  const { endpoint, fetch } = workbenchOverHttp((exchange, pass) => {
    if (fetch.initializes < 2) return undefined;
    if (exchange.method === 'initialize') return delayed(600, () => pass(exchange));
    return exchange.method === 'tools/call' ? never(exchange.request.signal) : undefined;
  });
  const source = mcp({ transport: 'streamable-http', url: 'https://wire.test/mcp', http: { fetch }, timeouts: { callMs: 1_000 } });
  const tool = (await source.tools()).find((t) => t.name === 'list_notes') as ToolDef;
  await endpoint.forgetSessions();
  expect(await callOf(tool)).toMatchObject({ reason: 'unavailable' });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const call = watch(callOf(tool));
  await vi.advanceTimersByTimeAsync(999);
  expect(call.settled()).toBe('pending');
  expect(fetch.seen.filter((e) => e.method === 'tools/call')).toHaveLength(2);
  await vi.advanceTimersByTimeAsync(2);
  expect(call.settled()).toMatchObject({ reason: 'timeout' });
  const closing = source.close();
  await vi.advanceTimersByTimeAsync(10_000);
  await closing;
});

it('discoveryMs counts a slow handshake: the cold sweep ends at the deadline counted from tools()', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const { fetch } = workbenchOverHttp((exchange, pass) => {
    if (exchange.method === 'initialize') return delayed(1_500, () => pass(exchange));
    return exchange.method === 'tools/list' ? never(exchange.request.signal) : undefined;
  });
  const source = mcp({ transport: 'streamable-http', url: 'https://wire.test/mcp', http: { fetch }, timeouts: { discoveryMs: 2_000 } });
  const listing = watch(source.tools().then(() => 'resolved', (error: unknown) => error));
  await vi.advanceTimersByTimeAsync(1_999);
  expect(listing.settled()).toBe('pending');
  expect(fetch.seen.some((e) => e.method === 'tools/list')).toBe(true);
  await vi.advanceTimersByTimeAsync(2);
  const error = await listing.done;
  expect(ConfigError.is(error) && error.code).toBe('discovery.deadline');
  expect((error as Error).message).toContain('during page 1');
  const closing = source.close();
  await vi.advanceTimersByTimeAsync(10_000);
  await closing;
});
