/**
 * The edge entry (workerd, browsers, any runtime with Web APIs): the core alone. A stdio
 * config is refused with `config.transport_unavailable`, at construction.
 */
import { createMcp, type Mcp } from '../core/mcp/source.js';

export * from '../core/index.js';
export { fileJournal } from './file-journal.js';

/**
 * Imports an MCP server's tools as a ToolSource: streamable-http or inprocess here.
 *
 * Marked pure because it is: createMcp only closes over its argument. Without the mark this
 * call is a top-level side effect in dist/edge/index.js, so a bundle that never uses `mcp`
 * (native tools, the engine) still kept the whole MCP stack: 23 KB gzip'd of SDK client,
 * transport and OAuth code (test/workerd/edge-bundle.test.ts, "without mcp").
 */
export const mcp: Mcp = /* @__PURE__ */ createMcp({});
