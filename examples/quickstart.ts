/** The README's Quick start, verbatim: it imports only published packages, so it runs in an empty folder too. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { dispatchTool, mcp, resolveToolset } from '@rulvar/core';

// An MCP server with one tool, in this process (a stdio or HTTP server is imported the same way).
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool('add_note', { description: 'Save a note.', inputSchema: { title: z.string(), body: z.string() } }, ({ title }) => ({
  content: [{ type: 'text', text: `saved "${title}"` }],
}));

// Its tools become ordinary tools; the risk label is yours, not the server's.
const notes = mcp({ transport: 'inprocess', server, prefix: 'notes', risk: { add_note: 'write' } });
const toolset = await resolveToolset([notes]);
console.log('tools:', toolset.tools.map((tool) => tool.name).join(', '));

// Every call goes through the permission chain: 'standard' lets a write run, 'strict' asks first.
const call = { id: 'call-1', name: 'notes_add_note', input: { title: 'hello', body: 'world' } };
for (const preset of ['standard', 'strict'] as const) {
  const outcome = await dispatchTool(toolset, call, { permissions: { preset } });
  console.log(`${preset}: ${outcome.audit.verdict},`, outcome.status === 'done' ? outcome.result.output : outcome.audit.reason);
}
await notes.close();
