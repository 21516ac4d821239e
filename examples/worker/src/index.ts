/**
 * A Cloudflare Worker host with its own model loop in mind: it imports tools from an
 * embedded (in-process) MCP server and from a remote streamable-http one, resolves them into
 * one toolset and dispatches the calls it is sent, validated and mapped by the library.
 *
 *   GET  /tools      the resolved toolset: names, risk, approval flags and its hash
 *   POST /dispatch   { calls: [{ id, name, input }] } → the outcome of each call, in order
 */
import { dispatchTool, mcp, resolveToolset, type ToolCall } from '@rulvar/core';
import { createWorkbenchServer } from '../../servers/workbench.js';

interface Env {
  readonly MCP_URL: string;
  readonly MCP_TOKEN?: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    // A Worker isolate may outlive a request, but its I/O may not: sources live per request.
    const embedded = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'local', risk: { read_note: 'read' } });
    const remote = mcp({
      transport: 'streamable-http',
      url: env.MCP_URL,
      prefix: 'remote',
      http: { headers: () => (env.MCP_TOKEN === undefined ? {} : { authorization: `Bearer ${env.MCP_TOKEN}` }) },
      timeouts: { connectMs: 5_000, discoveryMs: 10_000, callMs: 10_000 },
      maxTools: 200,
    });
    try {
      const toolset = await resolveToolset([embedded, remote]);
      if (url.pathname === '/tools') {
        const tools = toolset.tools.map((t) => ({ name: t.name, risk: t.risk ?? null, needsApproval: t.needsApproval }));
        return Response.json({ toolsetHash: toolset.toolsetHash, tools });
      }
      if (url.pathname === '/dispatch' && request.method === 'POST') {
        const { calls } = (await request.json()) as { calls: ToolCall[] };
        const outcomes = [];
        for (const call of calls) outcomes.push(await dispatchTool(toolset, call, { permissions: { preset: 'open' } }));
        return Response.json({ outcomes });
      }
      return new Response('not found', { status: 404 });
    } catch (error) {
      const { name, code, message } = error as { name?: string; code?: string; message?: string };
      return Response.json({ error: { name, code, message } }, { status: 500 });
    } finally {
      await Promise.all([embedded.close(), remote.close()]);
    }
  },
};
