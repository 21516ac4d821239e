/**
 * Proves the browser project can load and run the MCP SDK pieces the shared suite builds its
 * fixtures from (server classes, in-memory and web-standard HTTP transports, the cfworker
 * validator). These are CommonJS-free ESM, but they reach zod, ajv and eventsource-parser
 * through deep imports that vite only serves reliably when pre-bundled: if this file fails
 * with an import error, look at `optimizeDeps.include` in vitest.config.ts.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';

function echoServer(): McpServer {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its input', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function client(): Client {
  return new Client(
    { name: 'probe', version: '1.0.0' },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
}

describe('MCP SDK in the browser', () => {
  it('round-trips a tool call over the in-memory transport', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = echoServer();
    await server.connect(serverSide);
    const c = client();
    await c.connect(clientSide);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    expect(await c.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
    });
    await c.close();
    await server.close();
  });

  it('round-trips over streamable HTTP served in-process by the web-standard transport', async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      // Stateful: the SDK refuses to reuse a stateless transport across requests.
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
    });
    const server = echoServer();
    await server.connect(transport);
    const c = client();
    const inProcessFetch = async (url: string | URL, init?: RequestInit) =>
      transport.handleRequest(new Request(url, init));
    await c.connect(
      new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: inProcessFetch }),
    );
    expect(await c.callTool({ name: 'echo', arguments: { text: 'over http' } })).toMatchObject({
      content: [{ type: 'text', text: 'over http' }],
    });
    await c.close();
    await server.close();
  });

  it('serves tools/list and tools/call from the low-level Server', async () => {
    // The paged and scripted fixtures of the shared suite are built on this class.
    const server = new Server({ name: 'low', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => ({
      tools: [{ name: 'page', inputSchema: { type: 'object' as const } }],
      nextCursor: request.params?.cursor === undefined ? 'c1' : undefined,
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: 'text', text: `low ${request.params.name}` }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const c = client();
    await c.connect(clientSide);
    const first = await c.listTools();
    expect(first).toMatchObject({ tools: [{ name: 'page' }], nextCursor: 'c1' });
    expect((await c.listTools({ cursor: 'c1' })).nextCursor).toBeUndefined();
    expect(await c.callTool({ name: 'page', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'low page' }],
    });
    await c.close();
    await server.close();
  });
});
