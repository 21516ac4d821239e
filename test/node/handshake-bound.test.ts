/**
 * The handshake's last step, the `notifications/initialized` POST, is bounded even when the
 * host set no connectMs: by the SDK's default request timeout (60 s), here on fake timers.
 * (With connectMs the shared suite covers it in every runtime.)
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { mcp, SourceError } from '../../src/node/index.js';
import { intercept, never } from '../fixtures/hostile-wire.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';

afterEach(() => {
  vi.useRealTimers();
});

it('a notifications/initialized that is never answered fails the connect after the default 60 s', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const endpoint = createMcpEndpoint(createWorkbenchServer);
  const fetch = intercept(endpoint.fetch, (exchange) =>
    exchange.method === 'notifications/initialized' ? never(exchange.request.signal) : undefined,
  );
  const source = mcp({
    transport: 'streamable-http',
    url: 'https://wire.test/mcp',
    http: { fetch },
    timeouts: { listMs: 1_000, callMs: 1_000, discoveryMs: 2_000 },
  });
  let settled: unknown = 'pending';
  const listing = source.tools().then(
    () => 'resolved',
    (error: unknown) => error,
  );
  void listing.then((value) => (settled = value));
  await vi.advanceTimersByTimeAsync(59_000);
  expect(settled).toBe('pending');
  await vi.advanceTimersByTimeAsync(1_500);
  const error = await listing;
  expect(SourceError.is(error)).toBe(true);
  expect((error as SourceError).code).toBe('source.unavailable');
  expect((error as Error).message).toContain('notifications/initialized within 60000 ms');
  expect(fetch.seen.some((e) => e.method === 'tools/list')).toBe(false);
  const closing = source.close();
  await vi.advanceTimersByTimeAsync(10_000);
  await closing;
});
