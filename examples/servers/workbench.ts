/**
 * A small MCP server used by the demo, the tests and the docs: a notebook of short notes.
 * It exercises each result shape the importer maps: plain text, structured content with an
 * outputSchema, mixed content (text, an image, a resource link), and a tool-reported error.
 * Runtime-neutral: it can run in-process, behind HTTP, or over stdio (see workbench-stdio.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

// A 1x1 transparent PNG, so the mixed-content tool needs no files.
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export function createWorkbenchServer(): McpServer {
  const notes = new Map<string, string>();
  const server = new McpServer({ name: 'workbench', version: '1.0.0' });

  server.registerTool(
    'add_note',
    {
      description: 'Store a note under a title (replaces an existing one).',
      inputSchema: { title: z.string().min(1), body: z.string() },
      outputSchema: { title: z.string(), count: z.number().int() },
    },
    async ({ title, body }, extra) => {
      // Reports progress when the client asked for it (a progressToken), as a long tool would:
      // the demos show these as tool:progress events.
      const token = extra._meta?.progressToken;
      const report = async (progress: number, message: string) => {
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 2, message } });
      };
      await report(1, 'checking the title');
      notes.set(title, body);
      await report(2, 'stored');
      const structured = { title, count: notes.size };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );

  server.registerTool(
    'read_note',
    { description: 'Read a note by title.', inputSchema: { title: z.string() } },
    ({ title }) => {
      const body = notes.get(title);
      return body === undefined
        ? { isError: true, content: [{ type: 'text', text: `no note titled ${JSON.stringify(title)}` }] }
        : { content: [{ type: 'text', text: body }] };
    },
  );

  server.registerTool(
    'list_notes',
    { description: 'List note titles, one text block each.', inputSchema: {} },
    () => ({ content: [...notes.keys()].map((title) => ({ type: 'text' as const, text: `${title}\n` })) }),
  );

  server.registerTool(
    'delete_note',
    { description: 'Delete a note.', inputSchema: { title: z.string() }, annotations: { destructiveHint: true } },
    ({ title }) => ({ content: [{ type: 'text', text: notes.delete(title) ? 'deleted' : 'not found' }] }),
  );

  server.registerTool(
    'snapshot',
    { description: 'A summary card: text, a thumbnail image and a link.', inputSchema: {}, annotations: { readOnlyHint: true } },
    () => ({
      content: [
        { type: 'text', text: `${notes.size} notes` },
        { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'notes://all', name: 'all notes', mimeType: 'text/plain' },
      ],
    }),
  );

  server.registerTool(
    'sleep',
    { description: 'Wait some milliseconds, then answer.', inputSchema: { ms: z.number().int().min(0).max(60_000) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}ms` }] };
    },
  );

  return server;
}
