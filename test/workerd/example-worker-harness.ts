/**
 * The setting test/workerd/example-worker.test.ts runs examples/worker in: the Worker built by
 * `wrangler deploy --dry-run` from the root wrangler.toml exactly as a user would build it,
 * its bindings read from that same file by wrangler, run under plain Miniflare (code
 * generation refused, no nodejs_compat) against a real streamable-http MCP server on loopback
 * that records the authorization header of every request it gets.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
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
import { Miniflare, type WorkerOptions } from 'miniflare';
import { createMcpEndpoint, type McpEndpoint } from '../fixtures/http-server.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The remote MCP server's token (MCP_TOKEN). */
export const TOKEN = 'example-worker-secret-7f3a';
/** The Worker's own secrets: the API's bearer token and the approval links' HMAC key. */
export const API_TOKEN = 'api-token-5be1c7a0d3f94e6b8a21c0d9e7f4b3a6';
export const LINK_SECRET = 'link-secret-0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b';
/** What every example under test gets unless a test says otherwise. */
export const SECRETS = { API_TOKEN, APPROVAL_LINK_SECRET: LINK_SECRET, MCP_TOKEN: TOKEN } as const;

/** What `wrangler deploy --dry-run --outdir` wrote: the bundle, and esbuild's metafile. */
export interface Built {
  readonly outdir: string;
  readonly script: string;
  readonly inputs: readonly string[];
}

export async function buildWorker(): Promise<Built> {
  const outdir = await mkdtemp(path.join(tmpdir(), 'rulvar-worker-'));
  const metafile = path.join(outdir, 'meta.json');
  // No -c: wrangler finds the root wrangler.toml, as `npx wrangler deploy` from the root does.
  await promisify(execFile)(process.execPath, [path.join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', outdir, '--metafile', metafile], {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
  });
  const meta = JSON.parse(await readFile(metafile, 'utf8')) as { inputs: Record<string, unknown> };
  return { outdir, script: path.join(outdir, 'index.js'), inputs: Object.keys(meta.inputs) };
}

/** The bindings, Durable Objects and compatibility settings wrangler derives from wrangler.toml. */
export async function configuredOptions(): Promise<Pick<WorkerOptions, 'compatibilityDate' | 'compatibilityFlags' | 'durableObjects' | 'bindings'>> {
  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import('wrangler');
  const config = path.join(root, 'wrangler.toml');
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  const { compatibilityDate, compatibilityFlags, durableObjects } = workerOptions;
  // wrangler.toml's [vars] only: wrangler also merges a .dev.vars it finds beside the file
  // (the local recipe's secrets, in a developer's clone), which would configure every example
  // under test, the one that must run with no API_TOKEN included.
  const vars = new Set(Object.keys(unstable_readConfig({ config }).vars));
  const bindings = Object.fromEntries(Object.entries(workerOptions.bindings ?? {}).filter(([name]) => vars.has(name)));
  return { compatibilityDate, compatibilityFlags, durableObjects, bindings } as Pick<WorkerOptions, 'compatibilityDate' | 'compatibilityFlags' | 'durableObjects' | 'bindings'>;
}

const LOOKUP_OUTPUT = { type: 'object', properties: { query: { type: 'string' }, hits: { type: 'integer' } }, required: ['query', 'hits'] } as const;

function remoteServer(): Server {
  const server = new Server({ name: 'remote', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'lookup', description: 'look a query up', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, outputSchema: LOOKUP_OUTPUT }],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const query = String(request.params.arguments?.['query']);
    const found = { query, hits: query.length };
    return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found };
  });
  return server;
}

export interface Remote {
  readonly url: string;
  readonly endpoint: McpEndpoint;
  close(): Promise<void>;
}

/** The remote MCP server, on a loopback port. */
export async function startRemote(): Promise<Remote> {
  const endpoint = createMcpEndpoint(remoteServer);
  const app = new Hono().all('/mcp', (c) => endpoint.handle(c.req.raw));
  const http = await new Promise<ServerType>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
  });
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    endpoint,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

/**
 * A Worker that tries `new Function`: run beside the example under the same options, it shows
 * the isolate refuses code generation (answers the error's name, or "allowed").
 */
const CODEGEN_PROBE = `export default { fetch() {
  try { return new Response(String(new Function('return 1')())); } catch (error) { return new Response('refused: ' + error.name); }
} };`;

/** The example under plain Miniflare, with `vars` over wrangler.toml's, plus the probe. */
export function startExample(built: Built, options: Awaited<ReturnType<typeof configuredOptions>>, vars: Record<string, string>): Miniflare {
  const { compatibilityDate, compatibilityFlags } = options;
  return new Miniflare({
    workers: [
      {
        name: 'example',
        modules: true,
        scriptPath: built.script,
        // Module paths are relative to this root; the bundle lives outside the repository.
        modulesRoot: built.outdir,
        ...options,
        bindings: { ...options.bindings, ...vars },
      },
      { name: 'probe', modules: true, script: CODEGEN_PROBE, ...(compatibilityDate === undefined ? {} : { compatibilityDate }), ...(compatibilityFlags === undefined ? {} : { compatibilityFlags }) },
    ],
  });
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON, or the text of an answer that is not JSON (a link's page). */
  readonly body: unknown;
}

/**
 * Sends a request to the example, with `authorization` (the API token by default; null sends
 * none), and parses the answer; every body it ever got is kept in `seen`, for the check that
 * no secret appears in any.
 */
export function client(mf: Miniflare, seen: string[], authorization: string | null = `Bearer ${API_TOKEN}`) {
  return async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const auth = authorization === null ? {} : { authorization };
    const init = { method, headers: { ...auth, ...headers }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) };
    const response = await mf.dispatchFetch(`http://worker${route}`, init);
    const text = await response.text();
    seen.push(text);
    const json = (response.headers.get('content-type') ?? '').includes('json');
    return { status: response.status, headers: response.headers as unknown as Headers, body: json ? (JSON.parse(text) as unknown) : text };
  };
}
