/**
 * The 10 MB cap on one message (README, "One message is capped at 10 MB"), per wire: an
 * endless response, one SSE event past the cap and one just under it. On a loopback wire the
 * bytes cross a real socket, so "not buffered" is measured where it matters: the server
 * streams the flood only as fast as the client reads, and counts what it was asked for.
 */
import { flood, sseResult } from '../fixtures/wire-rules.js';
import type { SuiteHarness } from './harness.js';
import { expectSourceError, pick, run } from './helpers.js';
import { expectCarried, type Wire } from './wire.js';
import { opening } from './era.js';

const CAP = 10 * 1024 * 1024;
/** What a server may have streamed when a cut lands: the cap, plus what a socket and the stream queues hold. */
const SLACK = 6 * 1024 * 1024;

export function httpCapCases(h: SuiteHarness, wire: Wire): void {
  const { mcp } = h.lib;

  for (const contentType of ['application/json', 'text/event-stream'] as const) {
    h.it(`an endless ${contentType} response is cut at 10 MB, not buffered`, async () => {
      await using endpoint = await wire.serve('workbench', { rules: [{ on: opening(h), reply: flood(contentType) }] });
      await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('more than 10485760 bytes');
      h.expect((await endpoint.log()).streamed).toBeLessThan(CAP + SLACK);
    });
  }

  h.it('one SSE event past 10 MB fails that call typed, the rest is never read, and the next call reconnects', async () => {
    const rules = [{ on: 'tools/call', nth: [1], reply: sseResult(64 * 1024 * 1024) }];
    await using endpoint = await wire.serve('workbench', { rules });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const tools = await source.tools();
    const cut = await run(h, pick(tools, 'list_notes'), {});
    h.expect(cut).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(cut.output).toContain('more than 10485760 bytes in one event');
    const log = await endpoint.log();
    h.expect(log.streamed).toBeLessThan(CAP + SLACK);
    expectCarried(h, wire, log);
    h.expect(await run(h, pick(tools, 'add_note'), { title: 'after', body: '' })).toMatchObject({ isError: false });
  }, 15_000);

  h.it('one SSE event just under 10 MB is delivered whole', async () => {
    const bytes = CAP - 1_024;
    await using endpoint = await wire.serve('workbench', { rules: [{ on: 'tools/call', reply: sseResult(bytes) }] });
    await using source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http });
    const result = await run(h, pick(await source.tools(), 'list_notes'), {});
    h.expect(result.isError).toBe(false);
    const log = await endpoint.log();
    h.expect(log.streamed).toBe(bytes);
    expectCarried(h, wire, log);
    h.expect(JSON.stringify(result.output)).toMatch(/^"x{10000}/);
  }, 15_000);
}
