/**
 * The edge entry (workerd, browsers, any runtime with Web APIs): the core alone. A stdio
 * config is refused with `config.transport_unavailable`, at construction.
 */
import { createMcp, type Mcp } from '../core/mcp/source.js';

export * from '../core/index.js';
export { fileJournal } from './file-journal.js';

/** Imports an MCP server's tools as a ToolSource: streamable-http or inprocess here. */
export const mcp: Mcp = createMcp({});
