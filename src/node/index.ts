/** The Node entry: the core plus what only Node has (stdio servers as child processes). */
import { createMcp, type Mcp } from '../core/mcp/source.js';
import { createStdioTransport } from './stdio.js';

export * from '../core/index.js';
export { fileJournal } from './file-journal.js';

/** Imports an MCP server's tools as a ToolSource: stdio, streamable-http or inprocess. */
export const mcp: Mcp = createMcp({ stdio: createStdioTransport });
