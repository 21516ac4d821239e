/**
 * The `tools/list` sweep: one wire call per page, following `nextCursor` until the server
 * stops offering one (absent or empty both end it). Pages are fetched with a plain request
 * per page rather than the SDK's listTools, which drops validators between pages.
 *
 * A cursor this sweep has already queried can only lead back to pages already consumed, so
 * it is refused on the spot: the self-echo as `discovery.cursor_echo`, any longer cycle as
 * `discovery.cursor_cycle`. Neither needs configuration; neither is ever legitimate.
 */
import type { ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../errors.js';
import { quoteName } from '../tools/names.js';

export type ListPage = (cursor: string | undefined) => Promise<ListToolsResult>;

export interface SweepResult {
  readonly tools: readonly Tool[];
  readonly pages: number;
}

export async function sweepTools(listPage: ListPage, sourceId: string): Promise<SweepResult> {
  const tools: Tool[] = [];
  const visited = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await listPage(cursor);
    pages += 1;
    for (const tool of page.tools) tools.push(tool);
    const next = page.nextCursor;
    if (next === undefined || next === '') return { tools, pages };
    if (next === cursor) {
      throw new ConfigError(
        'discovery.cursor_echo',
        `${sourceId}: tools/list page ${pages} returned the cursor it was queried with (${quoteName(next)}); ` +
          'the sweep would never end',
      );
    }
    if (visited.has(next)) {
      throw new ConfigError(
        'discovery.cursor_cycle',
        `${sourceId}: tools/list page ${pages} returned cursor ${quoteName(next)}, which this sweep already ` +
          'queried; the pages form a cycle',
      );
    }
    visited.add(next);
    cursor = next;
  }
}
