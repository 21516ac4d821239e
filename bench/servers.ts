/**
 * The servers and raw SDK clients every comparison shares. Pages are built once and served by
 * reference, so each variant pays exactly the same server-side cost and only the client side
 * differs. Every server counts its tools/list calls, so a variant can prove each timed run
 * really swept instead of answering from a cache.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, ListToolsResultSchema, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** Pages of tools; page i is reached by cursor `c<i>`. */
export type Pages = readonly (readonly Tool[])[];

/**
 * A small but ordinary tool: a description and a two-property input schema. The schema text
 * differs per tool, as it does on real servers, so no cache keyed on content can flatter a row.
 */
function benchTool(name: string): Tool {
  return {
    name,
    description: `Looks things up for ${name}.`,
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: `What ${name} looks for` }, limit: { type: 'integer', minimum: 1 } },
      required: ['query'],
    },
  };
}

/** `tools` tools spread evenly over `pages` pages (0 tools makes empty pages). */
export function makePages(tools: number, pages: number): Pages {
  const perPage = Math.ceil(tools / pages);
  return Array.from({ length: pages }, (_, p) =>
    Array.from({ length: Math.max(0, Math.min(perPage, tools - p * perPage)) }, (_, i) => benchTool(`t${p * perPage + i}`)),
  );
}

export interface CountingServer {
  readonly server: Server;
  /** tools/list calls answered so far. */
  readonly lists: () => number;
}

export function pagedServer(pages: Pages): CountingServer {
  let lists = 0;
  const server = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    lists += 1;
    const cursor = request.params?.cursor;
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    const result: ListToolsResult = { tools: [...(pages[index] ?? [])] };
    if (index < pages.length - 1) result.nextCursor = `c${index + 1}`;
    return result;
  });
  return { server, lists: () => lists };
}

/** Connects a raw SDK client to `server` over a fresh linked pair. */
export async function connectClient(server: Server, client = rawClient()): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

export const rawClient = () => new Client({ name: 'bench-floor', version: '1.0.0' });

/**
 * The floor: Protocol.request per page, collecting the tools. Collecting matters: every tool
 * then lives until the sweep ends, as it does in the library, instead of dying young with its
 * page, which would hand the floor a cheaper garbage collector than any real client gets.
 */
export async function floorSweep(client: Client): Promise<number> {
  return (await floorSweepTools(client)).length;
}

/** `floorSweep`, giving back the tools it collected. */
export async function floorSweepTools(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
    for (const tool of page.tools) tools.push(tool);
    cursor = page.nextCursor;
  } while (cursor !== undefined && cursor !== '');
  return tools;
}

/** What a naive wrapper does: the SDK's listTools per page (it also caches per-page metadata). */
export async function naiveSweep(client: Client): Promise<number> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const tool of page.tools) tools.push(tool);
    cursor = page.nextCursor;
  } while (cursor !== undefined && cursor !== '');
  return tools.length;
}

/**
 * Drops a source's per-session cache with a real tools/list_changed, so its next tools()
 * re-lists every page. The notification lands on a later turn, hence the yield.
 */
export async function dropCache(server: CountingServer): Promise<void> {
  await server.server.sendToolListChanged();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Throws unless a run saw what it should have; a benchmark of the wrong work is worse than none. */
export function expectRun(what: string, got: number, want: number): void {
  if (got !== want) throw new Error(`${what}: expected ${want}, got ${got}`);
}
