/**
 * What the sweep's cursor guards keep: a fixed-size digest per page, not the cursor. 200
 * pages of fresh 1 MB cursors would pin 200 MB if the guard remembered them in full.
 *
 * Measured without --expose-gc: the server samples heapUsed on each of the last 100 pages,
 * while the sweep still holds whatever it keeps. The cursors themselves are the allocation
 * churn: 100 MB of dropped 1 MB strings forces collections in between, so the smallest
 * sample sits near what is really live. Kept in full, that floor would be 100 MB above the
 * baseline at the very least; kept as digests it stays near it.
 */
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/node/index.js';
import { hostileServer } from '../fixtures/hostile.js';

const MB = 1_000_000;
const PAGES = 200;

describe('sweep memory', () => {
  it('200 pages of unique 1 MB cursors leave the heap floor under 40 MB above its baseline', async () => {
    const baseline = process.memoryUsage().heapUsed;
    let floor = Number.POSITIVE_INFINITY;
    const server = hostileServer({
      list: (_cursor, call) => {
        if (call > PAGES / 2) floor = Math.min(floor, process.memoryUsage().heapUsed);
        // A flat 1 MB string of its own: 'c'.repeat() alone is a rope of shared halves.
        return { tools: [], nextCursor: JSON.parse(JSON.stringify(`${call}:${'c'.repeat(MB)}`)) as string };
      },
    });
    await using source = mcp({ transport: 'inprocess', server, maxPages: PAGES });
    await expect(source.tools()).rejects.toMatchObject({ code: 'discovery.max_pages' });
    expect(server.lists).toBe(PAGES);
    expect((floor - baseline) / MB).toBeLessThan(40);
  }, 15_000); // about 2 s alone; 200 MB of churn on a shared CI core can take longer
});
