/**
 * Tool progress on the 2026-07-28 wire (src/core/mcp/modern/): the shared progress cases
 * against the v2 SDK's modern-only handler, in process (`http.fetch`) and over a loopback
 * socket. The token rides the request's `_meta` beside the envelope, and the reports come
 * back in the POST's own event stream.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mcp, type McpConfig } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { progressCases } from '../core/progress.suite.js';
import { modernProgressHandler } from '../fixtures/modern-progress.js';
import { startLoopbackHost } from './loopback-wire.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node', wires: [] } as SuiteHarness;
const host = await startLoopbackHost();
afterAll(() => host.close());

describe('tool progress on the 2026-07-28 wire, in process', () => {
  progressCases(h, async (extra) => {
    const handler = modernProgressHandler();
    const source = mcp({ transport: 'inprocess', server: handler, protocol: '2026-07-28', ...extra } as McpConfig);
    return { source, close: () => source.close() };
  }, { floodCount: 5_000, timed: true });
});

describe('tool progress on the 2026-07-28 wire over loopback TCP', () => {
  progressCases(h, async (extra) => {
    const handler = modernProgressHandler();
    const { url, unmount } = host.mount((request) => handler.fetch(request));
    const source = mcp({ transport: 'streamable-http', url, protocol: '2026-07-28', ...extra } as McpConfig);
    return { source, close: async () => (await source.close(), unmount()) };
  }, { floodCount: 5_000, timed: true });
});
