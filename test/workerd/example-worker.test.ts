/**
 * examples/worker, built by wrangler exactly as a user would build it (export conditions
 * workerd/worker/browser → the edge build of dist/), run under plain Miniflare where code
 * generation is refused, talking to a real streamable-http MCP server on loopback.
 * (Its embedded McpServer brings the SDK's server-side Ajv along; edge-bundle.test.ts scans
 * the library's own edge bundle, which has none.)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../fixtures/http-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Built from dist/: runs under npm test, which builds first and sets RULVAR_TEST_DIST=1.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

const NOTE = { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } }, required: ['id', 'title'] } as const;

function remoteServer(): Server {
  const server = new Server({ name: 'remote', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'lookup', inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }, outputSchema: NOTE },
      { name: 'broken', inputSchema: { type: 'object' }, outputSchema: NOTE },
      { name: 'failing', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === 'lookup') return { content: [], structuredContent: { id: args['id'], title: `note ${String(args['id'])}` } };
    if (request.params.name === 'broken') return { content: [], structuredContent: { id: 'not a number' } };
    return { isError: true, content: [{ type: 'text', text: 'remote tool failed' }] };
  });
  return server;
}

let outdir: string;
let http: ServerType;
let mf: Miniflare;
const endpoint = createMcpEndpoint(remoteServer);

beforeAll(async () => {
  if (!enabled) return;
  outdir = await mkdtemp(path.join(tmpdir(), 'rulvar-worker-'));
  await promisify(execFile)(
    process.execPath,
    [path.join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', outdir, '-c', 'examples/worker/wrangler.toml'],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' } },
  );
  await new Promise<void>((resolve) => {
    http = serve({ fetch: new Hono().all('/mcp', (c) => endpoint.handle(c.req.raw)).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  mf = new Miniflare({
    modules: true,
    scriptPath: path.join(outdir, 'index.js'),
    // Module paths are relative to this root; the bundle lives outside the repository.
    modulesRoot: outdir,
    compatibilityDate: '2026-04-01',
    bindings: { MCP_URL: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, MCP_TOKEN: 'worker-token' },
  });
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await mf?.dispose();
  await new Promise((resolve) => http?.close(resolve));
  await rm(outdir, { recursive: true, force: true });
});

describe.runIf(enabled)('examples/worker under plain Miniflare', () => {
  it('resolves one toolset from an embedded and a remote server', async () => {
    const body = (await (await mf.dispatchFetch('http://worker/tools')).json()) as { toolsetHash: string; tools: { name: string }[] };
    expect(body.toolsetHash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['local_add_note', 'remote_lookup', 'remote_broken']));
    expect(endpoint.requests.every((r) => r.authorization === 'Bearer worker-token')).toBe(true);
  });

  it('validates arguments and outputs, and maps results, with codegen disallowed', async () => {
    const calls = [
      { id: '1', name: 'local_add_note', input: { title: 'a', body: 'b' } },
      { id: '2', name: 'local_add_note', input: { title: 42 } },
      { id: '3', name: 'remote_lookup', input: { id: 7 } },
      { id: '4', name: 'remote_lookup', input: { id: 'seven' } },
      { id: '5', name: 'remote_broken', input: {} },
      { id: '6', name: 'remote_failing', input: {} },
    ];
    const response = await mf.dispatchFetch('http://worker/dispatch', { method: 'POST', body: JSON.stringify({ calls }) });
    const { outcomes } = (await response.json()) as { outcomes: { status: string; result: Record<string, unknown> }[] };
    expect(outcomes.map((o) => [o.result['isError'], o.result['reason'] ?? null])).toEqual([
      [false, null],
      [true, 'invalid_input'],
      [false, null],
      [true, 'invalid_input'],
      [true, 'invalid_output'],
      [true, 'server_error'],
    ]);
    expect(outcomes[0]?.result['output']).toEqual({ title: 'a', count: 1 });
    expect(outcomes[2]?.result['output']).toEqual({ id: 7, title: 'note 7' });
    expect(String(outcomes[1]?.result['output'])).toContain('/title');
  });
});
