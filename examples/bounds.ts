/**
 * The production posture: requireBounds with every bound declared, against a server that
 * paginates forever. The sweep is refused typed, naming the bound, instead of running on.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcp, RulvarError } from '@rulvar/core';

// A server that answers every page with a fresh cursor: neither tools nor timeouts grow.
const endless = new Server({ name: 'endless', version: '1' }, { capabilities: { tools: {} } });
let page = 0;
endless.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [], nextCursor: `page-${(page += 1)}` }));

const source = mcp({
  transport: 'inprocess',
  server: endless,
  requireBounds: true,
  maxTools: 64,
  maxPages: 16,
  maxSchemaBytes: 16_384,
  timeouts: { connectMs: 3_000, listMs: 5_000, callMs: 30_000, discoveryMs: 10_000 },
});

try {
  await source.tools();
} catch (error) {
  if (!RulvarError.is(error)) throw error;
  console.log(`${error.name} ${error.code}: ${error.message}`);
} finally {
  await source.close();
}
