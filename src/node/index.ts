/**
 * The Node entry: the core plus what only Node has (stdio servers as child processes).
 * `@rulvar/core` under Node, and `@rulvar/core/node` anywhere. The edge entry
 * (`@rulvar/core/edge`, and `@rulvar/core` under workerd, worker, browser and default)
 * exports the same names; its `mcp` refuses `transport: 'stdio'`.
 *
 * @module @rulvar/core
 */
import { createMcp, type Mcp } from '../core/mcp/source.js';
import { createStdioTransport } from './stdio.js';

export * from '../core/index.js';
export { fileJournal } from './file-journal.js';

/**
 * Imports an MCP server's tools as a ToolSource: stdio, streamable-http or inprocess. Marked
 * pure (createMcp only closes over its argument) so a bundle that never calls mcp drops it.
 */
export const mcp: Mcp = /* @__PURE__ */ createMcp({ stdio: createStdioTransport });
