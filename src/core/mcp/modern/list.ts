/**
 * tools/list on the 2026-07-28 wire. The change subscription is opened before the list is
 * read (so no change falls between the two), each page's `ttlMs` says how long the list may be
 * served from the cache (the smallest of them counts), and over HTTP a tool whose
 * `x-mcp-header` annotations break the revision's rules is left out of the list (the host
 * hears of it through onToolSkipped) while the plans of the rest go to the link, which mirrors
 * their arguments into headers. The sweep's bounds and guards are the 2025 wire's (sweep.ts).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpCommonConfig } from '../config-types.js';
import { sweepTools, type SweepLimits } from '../sweep.js';
import type { WireClient } from '../wire-client.js';
import { freshFor } from './answers.js';
import { listPage } from './calls.js';
import type { ModernLink } from './link.js';
import type { ToolListener } from './listen.js';
import { planParamHeaders } from './param-headers.js';

/** How long a subscription may take to be acknowledged when neither listMs nor connectMs says. */
const ACK_MS = 10_000;

export interface ModernList {
  readonly tools: readonly Tool[];
  /** When the list goes stale (Date.now() time). */
  readonly expires: number;
}

export async function sweepModern(
  client: WireClient,
  link: ModernLink,
  listener: ToolListener | undefined,
  config: McpCommonConfig,
  sourceId: string,
  limits: SweepLimits,
): Promise<ModernList> {
  await listener?.ensure(config.timeouts?.listMs ?? config.timeouts?.connectMs ?? ACK_MS);
  let expires = Infinity;
  const swept = await sweepTools(
    (cursor, timeout) =>
      listPage(client, cursor, timeout).then((page) => {
        expires = Math.min(expires, Date.now() + freshFor(page));
        return page;
      }),
    sourceId,
    limits,
  );
  return { tools: link.http ? admitHeaders(swept, link, config) : swept, expires };
}

function admitHeaders(tools: readonly Tool[], link: ModernLink, config: McpCommonConfig): readonly Tool[] {
  link.plans.clear();
  const kept: Tool[] = [];
  for (const tool of tools) {
    const plan = planParamHeaders(tool.inputSchema);
    if ('invalid' in plan) {
      config.onToolSkipped?.({ name: tool.name, reason: plan.invalid });
      continue;
    }
    if (plan.headers.length > 0) link.plans.set(tool.name, plan.headers);
    kept.push(tool);
  }
  return kept.length === tools.length ? tools : kept;
}
