/**
 * The `tools/list` sweep: one wire call per page, following `nextCursor` until the server
 * stops offering one (absent or empty both end it). Pages are fetched with a plain request
 * per page rather than the SDK's listTools, which drops validators between pages.
 *
 * Guards that need no configuration: a cursor this sweep has already queried can only lead
 * back to pages already consumed, so it is refused on the spot, the self-echo as
 * `discovery.cursor_echo` and any longer cycle as `discovery.cursor_cycle`. Only the current
 * cursor is held in full; the ones before it are remembered by fixed-size keys (a SHA-256
 * digest for a long one, see cursor-digest.ts), so the guard costs a bounded amount per page
 * however large the cursors a server sends.
 * Bounds the host declares: maxTools (volume), maxPages (wire calls), listMs (one page) and
 * discoveryMs (the sweep as a unit, counted from `startedAt`, which is when tools() began and
 * so includes a handshake it waited for; every page waits at most what is left of it, so a
 * hung last page fails at the deadline too).
 */
import type { ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, SourceError } from '../errors.js';
import { quoteName } from '../tools/names.js';
import { cursorKey } from './cursor-digest.js';
import { classifyWireError } from './wire-errors.js';

/** Fetches one page; `timeoutMs` is the wire timeout for that request (undefined: the SDK's). */
export type ListPage = (cursor: string | undefined, timeoutMs: number | undefined) => Promise<ListToolsResult>;

export interface SweepLimits {
  readonly maxTools?: number | undefined;
  readonly maxPages?: number | undefined;
  readonly listMs?: number | undefined;
  readonly discoveryMs?: number | undefined;
  /** When the deadline's clock started (Date.now()); the sweep's own start by default. */
  readonly startedAt?: number | undefined;
}

export async function sweepTools(listPage: ListPage, sourceId: string, limits: SweepLimits): Promise<Tool[]> {
  const { maxTools, maxPages, listMs, discoveryMs } = limits;
  const deadline = discoveryMs === undefined ? undefined : (limits.startedAt ?? Date.now()) + discoveryMs;
  const tools: Tool[] = [];
  /** Keys of every cursor this sweep has queried with. */
  const visited = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let lastPause = Date.now();
  const refuse = (code: ConstructorParameters<typeof ConfigError>[0], detail: string) =>
    new ConfigError(code, `${sourceId}: tools/list ${detail}`);

  for (;;) {
    const remaining = deadline === undefined ? undefined : deadline - Date.now();
    if (remaining !== undefined && remaining <= 0) {
      throw refuse('discovery.deadline', `sweep passed its deadline of ${discoveryMs} ms after ${pages} pages`);
    }
    const deadlineBinds = remaining !== undefined && (listMs === undefined || remaining <= listMs);
    let page: ListToolsResult;
    try {
      page = await listPage(cursor, deadlineBinds ? remaining : listMs);
    } catch (error) {
      if (classifyWireError(error).kind !== 'timeout') throw error;
      // Named for the bound that was binding, whichever timer actually fired.
      if (deadlineBinds) {
        throw refuse('discovery.deadline', `sweep passed its deadline of ${discoveryMs} ms during page ${pages + 1}`);
      }
      if (listMs !== undefined) {
        throw refuse('discovery.page_timeout', `page ${pages + 1} did not answer within timeouts.listMs = ${listMs} ms`);
      }
      throw new SourceError('source.unavailable', `${sourceId}: tools/list page ${pages + 1} timed out`, { cause: error });
    }
    pages += 1;
    for (const tool of page.tools) tools.push(tool);
    if (maxTools !== undefined && tools.length > maxTools) {
      throw refuse('discovery.max_tools', `streamed ${tools.length} tools by page ${pages}, past maxTools = ${maxTools}`);
    }
    const next = page.nextCursor;
    if (next === undefined || next === '') return tools;
    if (next === cursor) {
      throw refuse('discovery.cursor_echo', `page ${pages} returned the cursor it was queried with (${quoteName(next)})`);
    }
    const key = await cursorKey(next);
    if (visited.has(key)) {
      throw refuse('discovery.cursor_cycle', `page ${pages} returned cursor ${quoteName(next)}, which this sweep already queried`);
    }
    if (maxPages !== undefined && pages >= maxPages) {
      throw refuse('discovery.max_pages', `still reports another page after ${pages} pages, the maxPages cap`);
    }
    visited.add(key);
    cursor = next;
    // An in-process server answers through microtasks only; without a pause now and then,
    // a long sweep would starve every timer in the host (a caller's abort signal included).
    // (workerd's clock stands still between I/O events, hence the page count as well.)
    if (pages % PAUSE_EVERY_PAGES === 0 || Date.now() - lastPause >= PAUSE_EVERY_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      lastPause = Date.now();
    }
  }
}

const PAUSE_EVERY_MS = 50;
const PAUSE_EVERY_PAGES = 1_000;
