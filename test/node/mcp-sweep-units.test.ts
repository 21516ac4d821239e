/**
 * Unit tests for src/core/mcp/sweep.ts, the tools/list sweep, against a scripted pager and a
 * fake Date: cursors followed to the end, each bound at its edge (maxTools, maxPages, listMs,
 * discoveryMs counted from when tools() began), the guards that need no configuration
 * (a cursor echoed or seen before, long cursors included), which bound a timeout is named
 * for, and the pauses that keep an in-process sweep from starving the host's timers.
 */
import { ErrorCode, McpError, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sweepTools, type ListPage, type SweepLimits } from '../../src/core/mcp/sweep.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
const timeout = () => new McpError(ErrorCode.RequestTimeout, 'Request timed out');

/** A pager over `pages` (each its tools and next cursor) that records what it was asked. */
function pager(pages: readonly (readonly [number, string | undefined])[], onPage?: (index: number) => void) {
  const asked: [string | undefined, number | undefined][] = [];
  let served = 0;
  const listPage: ListPage = (cursor, timeoutMs) => {
    asked.push([cursor, timeoutMs]);
    const index = served;
    served += 1;
    onPage?.(index);
    const [count, nextCursor] = pages[index] ?? [0, undefined];
    const result: ListToolsResult = { tools: Array.from({ length: count }, (_, i) => tool(`t${index}_${i}`)) };
    return Promise.resolve(nextCursor === undefined ? result : { ...result, nextCursor });
  };
  return { listPage, asked };
}

const sweep = (listPage: ListPage, limits: SweepLimits = {}) => sweepTools(listPage, 'mcp:test', limits);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('pages and cursors', () => {
  it('follows nextCursor until it is absent or empty, in order, with no timeout of its own', async () => {
    const { listPage, asked } = pager([[2, 'a'], [1, 'b'], [0, '']]);
    expect((await sweep(listPage)).map((t) => t.name)).toEqual(['t0_0', 't0_1', 't1_0']);
    expect(asked).toEqual([[undefined, undefined], ['a', undefined], ['b', undefined]]);
  });

  it('a cursor echoed back is refused at once', async () => {
    const { listPage } = pager([[1, 'a'], [1, 'a']]);
    await expect(sweep(listPage)).rejects.toThrow(expect.objectContaining({ code: 'discovery.cursor_echo', message: 'mcp:test: tools/list page 2 returned the cursor it was queried with ("a")' }));
  });

  it('a cursor seen before is a cycle, short or long (long ones are remembered by digest)', async () => {
    await expect(sweep(pager([[1, 'a'], [1, 'b'], [1, 'a']]).listPage)).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.cursor_cycle', message: 'mcp:test: tools/list page 3 returned cursor "a", which this sweep already queried' }),
    );
    const long = 'c'.repeat(10_000);
    await expect(sweep(pager([[1, long], [1, 'b'], [1, long]]).listPage)).rejects.toThrow(expect.objectContaining({ code: 'discovery.cursor_cycle' }));
    const other = `${'c'.repeat(9_999)}d`;
    expect(await sweep(pager([[1, long], [1, other], [1, undefined]]).listPage)).toHaveLength(3);
  });
});

describe('maxTools and maxPages', () => {
  it('maxTools counts across pages; reaching it is fine, one past is refused on that page', async () => {
    expect(await sweep(pager([[2, 'a'], [1, undefined]]).listPage, { maxTools: 3 })).toHaveLength(3);
    await expect(sweep(pager([[2, 'a'], [2, undefined]]).listPage, { maxTools: 3 })).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.max_tools', message: 'mcp:test: tools/list streamed 4 tools by page 2, past maxTools = 3' }),
    );
  });

  it('maxPages pages that end are fine; a page past it is never asked for', async () => {
    expect(await sweep(pager([[1, 'a'], [1, undefined]]).listPage, { maxPages: 2 })).toHaveLength(2);
    const { listPage, asked } = pager([[1, 'a'], [1, 'b'], [1, undefined]]);
    await expect(sweep(listPage, { maxPages: 2 })).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.max_pages', message: 'mcp:test: tools/list still reports another page after 2 pages, the maxPages cap' }),
    );
    expect(asked).toHaveLength(2);
  });
});

describe('listMs and discoveryMs', () => {
  it('each page waits listMs, or what is left of discoveryMs when that is less', async () => {
    const { listPage, asked } = pager([[1, 'a'], [1, 'b'], [1, undefined]], (index) => {
      if (index < 2) vi.setSystemTime(Date.now() + 400);
    });
    await sweep(listPage, { listMs: 500, discoveryMs: 1_000 });
    expect(asked.map(([, ms]) => ms)).toEqual([500, 500, 200]);
  });

  it('discoveryMs counts from startedAt (tools() began), and a page at the deadline is never asked for', async () => {
    const { listPage, asked } = pager([[1, undefined]]);
    await expect(sweep(listPage, { discoveryMs: 1_000, startedAt: Date.now() - 1_000 })).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.deadline', message: 'mcp:test: tools/list sweep passed its deadline of 1000 ms after 0 pages' }),
    );
    expect(asked).toEqual([]);
    const late = pager([[1, undefined]]);
    await sweep(late.listPage, { discoveryMs: 1_000, startedAt: Date.now() - 999 });
    expect(late.asked).toEqual([[undefined, 1]]);
  });

  it('the deadline between pages names the pages done', async () => {
    const { listPage } = pager([[1, 'a'], [1, undefined]], () => vi.setSystemTime(Date.now() + 1_000));
    await expect(sweep(listPage, { discoveryMs: 1_000 })).rejects.toThrow('sweep passed its deadline of 1000 ms after 1 pages');
  });
});

describe('a page that times out is named for the bound that was binding', () => {
  const failing = (error: unknown): ListPage => () => Promise.reject(error);

  it('discoveryMs when what was left of it was the wait, listMs when that was', async () => {
    await expect(sweep(failing(timeout()), { listMs: 5_000, discoveryMs: 1_000 })).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.deadline', message: 'mcp:test: tools/list sweep passed its deadline of 1000 ms during page 1' }),
    );
    await expect(sweep(failing(timeout()), { listMs: 1_000, discoveryMs: 1_000 })).rejects.toThrow(expect.objectContaining({ code: 'discovery.deadline' }));
    await expect(sweep(failing(timeout()), { listMs: 999, discoveryMs: 1_000 })).rejects.toThrow(
      expect.objectContaining({ code: 'discovery.page_timeout', message: 'mcp:test: tools/list page 1 did not answer within timeouts.listMs = 999 ms' }),
    );
    await expect(sweep(failing(timeout()), { listMs: 999 })).rejects.toThrow(expect.objectContaining({ code: 'discovery.page_timeout' }));
  });

  it("with neither, the SDK's own timer: source.unavailable with the timeout as its cause", async () => {
    const cause = timeout();
    const refused = sweep(failing(cause));
    await expect(refused).rejects.toThrow(expect.objectContaining({ code: 'source.unavailable', message: 'mcp:test: tools/list page 1 timed out' }));
    await expect(refused).rejects.toHaveProperty('cause', cause);
  });

  it('any other failure is handed on as it came', async () => {
    const error = new McpError(-32603, 'boom');
    await expect(sweep(failing(error), { listMs: 10, discoveryMs: 10 })).rejects.toBe(error);
  });
});

describe('pauses for the host', () => {
  /** The page during which a zero-delay timer set before the sweep got to run. */
  async function timerRanAt(pages: number, onPage?: (index: number) => void): Promise<number | undefined> {
    let served = 0;
    let ranAt: number | undefined;
    setTimeout(() => (ranAt = served), 0);
    const listPage: ListPage = () => {
      onPage?.(served);
      served += 1;
      return Promise.resolve({ tools: [], ...(served < pages ? { nextCursor: `c${served}` } : {}) });
    };
    await sweep(listPage);
    return ranAt;
  }

  it('an in-process sweep yields every 1,000 pages, so timers run during it', async () => {
    expect(await timerRanAt(1_001)).toBe(1_000);
    expect(await timerRanAt(999)).toBeUndefined();
  });

  it('and after 50 ms of sweeping, whatever the page count', async () => {
    expect(await timerRanAt(10, (index) => index === 3 && vi.setSystemTime(Date.now() + 50))).toBe(4);
    expect(await timerRanAt(10, (index) => index === 3 && vi.setSystemTime(Date.now() + 49))).toBeUndefined();
  });
});
