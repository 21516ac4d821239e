/**
 * Issue 14's resolution rows, against the raw SDK in the same run:
 *   resolveToolset  an in-process MCP source of 100, 1,000 and 10,000 tools (100 pages at
 *                   10,000; 10 tools a page below it), each tool with an input and an output
 *                   schema, resolved cold: each run is a fresh source, so connect, sweep,
 *                   import, admission (subset checks, validator compile) and both hashes are
 *                   all timed. The floor is the same connect + raw `client.request` sweep of
 *                   the same pages with the SDK's own result schema, on a fresh client
 *                   too. Every size has its own floor, measured interleaved with it, so the
 *                   three ratios show whether resolution grows linearly with the toolset.
 *                   Beside them, a bound: the same raw sweep followed by `JSON.stringify` of
 *                   the listed contracts plus one SHA-256, the least a resolution that hashes
 *                   what it imports can cost (no admission, no import, no validator, no
 *                   canonical order). Where the bound itself is past RESOLVE_TARGET, no
 *                   implementation can meet the target; the row says so.
 *                   And warm: the same source resolved again with its list cached (what
 *                   every spawn after the first does), measured interleaved with the cold
 *                   runs and held to WARM_TARGET of the cold median: every tool is already
 *                   sealed (bus/contract-memo.ts), so no admission and no canonical JSON,
 *                   only lookups, the name checks, a sort and the two digests.
 *   toolsetHash     of the 10,000 resolved tools, hashed again (their texts are memoized),
 *                   against `JSON.stringify` of the same contract tuples (name-sorted) plus
 *                   one SHA-256 of the text: the least any hash of that data can cost in
 *                   JavaScript without a memo. Beside it, for reference, the same contracts
 *                   as plain objects no memo knows, so each is written afresh.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { library } from './library.js';
import { measured, printTargets, type Row } from './report.js';
import { connectClient, expectRun, floorSweep, floorSweepTools, pagedServer, rawClient, type CountingServer, type Pages } from './servers.js';

/** Issue 14's ceilings against the floor. */
const RESOLVE_TARGET = 2;
/** Issue 29's: a warm resolve against a cold one, a memoized hash against stringify + digest. */
const WARM_TARGET = 0.2;
const HASH_TARGET = 0.5;

/** Sizes resolved, with their page counts: 100 pages at the largest, as the issue measures. */
const SIZES = [
  { tools: 100, pages: 10 },
  { tools: 1_000, pages: 10 },
  { tools: 10_000, pages: 100 },
] as const;

/**
 * A tool as real servers list them: a description, an input schema and an output schema,
 * with text differing per tool so no cache keyed on content can flatter a row.
 */
export function resolveTool(name: string): Tool {
  return {
    name,
    description: `Looks things up for ${name}.`,
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: `What ${name} looks for`, maxLength: 500 }, limit: { type: 'integer', minimum: 1 } },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        hits: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, score: { type: 'number' } }, required: ['id'] } },
        source: { type: 'string', description: `Where ${name} looked` },
      },
      required: ['hits'],
    },
  };
}

export function resolvePages(tools: number, pages: number): Pages {
  const perPage = Math.ceil(tools / pages);
  return Array.from({ length: pages }, (_, p) =>
    Array.from({ length: Math.max(0, Math.min(perPage, tools - p * perPage)) }, (_, i) => resolveTool(`t${p * perPage + i}`)),
  );
}

/** Asserts one timed run listed every page afresh. */
function pagesListed(server: CountingServer, before: number, pages: number): void {
  expectRun('pages listed', server.lists() - before, pages);
}

interface SizeMedians {
  readonly floor: number;
  readonly value: number;
  readonly bound: number;
  readonly warm: number;
}

async function benchSize(tools: number, pages: number, options: { warmup: number; iterations: number }): Promise<SizeMedians> {
  const served = resolvePages(tools, pages);
  const floorServer = pagedServer(served);
  const boundServer = pagedServer(served);
  const libServer = pagedServer(served);
  const warmServer = pagedServer(served);
  const floorName = `floor: connect + client.request sweep (${tools})`;
  const boundName = `bound: that sweep + JSON.stringify + SHA-256 (${tools})`;
  const libName = `rulvar: resolveToolset, cold (${tools})`;
  const warmName = `rulvar: resolveToolset, warm (${tools})`;
  // Connected, swept and resolved once, untimed: every timed run finds the list cached.
  const warmSource = library.mcp({ transport: 'inprocess', server: warmServer.server });
  const first = await library.resolveToolset([warmSource]);
  const variants: Variant[] = [
    {
      name: floorName,
      run: async () => {
        const before = floorServer.lists();
        const client = await connectClient(floorServer.server, rawClient());
        expectRun('floor tools', await floorSweep(client), tools);
        await client.close();
        pagesListed(floorServer, before, pages);
      },
    },
    {
      name: boundName,
      run: async () => {
        const before = boundServer.lists();
        const client = await connectClient(boundServer.server, rawClient());
        const listed = await floorSweepTools(client);
        expectRun('bound tools', listed.length, tools);
        const contracts = listed.map(({ name, description, inputSchema, outputSchema }) => ({ name, description: description ?? '', parameters: inputSchema, outputSchema }));
        await sha256(JSON.stringify(contractTuples(contracts)));
        await client.close();
        pagesListed(boundServer, before, pages);
      },
    },
    {
      name: libName,
      run: async () => {
        const before = libServer.lists();
        const source = library.mcp({ transport: 'inprocess', server: libServer.server });
        const toolset = await library.resolveToolset([source]);
        expectRun('resolved tools', toolset.tools.length, tools);
        await source.close();
        pagesListed(libServer, before, pages);
      },
    },
    {
      name: warmName,
      run: async () => {
        const before = warmServer.lists();
        const toolset = await library.resolveToolset([warmSource]);
        expectRun('warm tools', toolset.tools.length, tools);
        // The same toolset again, from the cache: no page listed, the same hash.
        pagesListed(warmServer, before, 0);
        if (toolset.toolsetHash !== first.toolsetHash) throw new Error('bench: a warm resolve hashed differently');
      },
    },
  ];
  const stats = await compare(variants, options);
  await warmSource.close();
  printTable(`resolveToolset, cold and warm: ${tools} tools over ${pages} pages, input and output schemas`, stats, floorName);
  return { floor: median(stats, floorName), value: median(stats, libName), bound: median(stats, boundName), warm: median(stats, warmName) };
}

/** The contract tuples toolsetHash covers, in its order, for the floor to stringify. */
function contractTuples(tools: readonly { name: string; description: string; parameters: unknown; outputSchema?: unknown; version?: string }[]): unknown[] {
  return [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, description, parameters, outputSchema, version }) => ({ name, description, parameters, outputSchema, version }));
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function benchHash(options: { warmup: number; iterations: number }): Promise<{ floor: number; value: number; fresh: number }> {
  const last = SIZES[SIZES.length - 1] ?? { tools: 0, pages: 1 };
  const server = pagedServer(resolvePages(last.tools, last.pages));
  const source = library.mcp({ transport: 'inprocess', server: server.server });
  const toolset = await library.resolveToolset([source]);
  await source.close();
  const { tools } = toolset;
  // The same contracts as objects of the bench's own, which no memo has seen.
  const plain = tools.map(({ name, description, parameters, outputSchema }) => JSON.parse(JSON.stringify({ name, description, parameters, outputSchema })) as typeof tools[number]);
  const floorName = 'floor: JSON.stringify + SHA-256';
  const libName = `rulvar: toolsetHash, repeated (${tools.length})`;
  const freshName = `rulvar: toolsetHash, written afresh (${tools.length})`;
  const hashOf = async (of: typeof tools) => {
    if ((await library.toolsetHash(of)) !== toolset.toolsetHash) throw new Error('bench: toolsetHash differs from the resolved toolset\'s');
  };
  const variants: Variant[] = [
    { name: floorName, run: async () => void (await sha256(JSON.stringify(contractTuples(tools)))) },
    { name: libName, run: () => hashOf(tools) },
    { name: freshName, run: () => hashOf(plain) },
  ];
  const stats = await compare(variants, options);
  printTable(`toolsetHash: ${tools.length} tools with input and output schemas`, stats, floorName);
  return { floor: median(stats, floorName), value: median(stats, libName), fresh: median(stats, freshName) };
}

export async function benchResolve(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const rows: Row[] = [];
  const warmRows: Row[] = [];
  for (const [i, { tools, pages }] of SIZES.entries()) {
    const { floor, value, bound, warm } = await benchSize(tools, pages, options);
    warmRows.push(
      measured({
        name: `rulvar: resolveToolset, warm (${tools})`,
        comparison:
          i === 0
            ? `\`resolveToolset\` again, warm (the same source, its list cached): ${tools.toLocaleString('en-US')} tools vs the cold resolve above`
            : `the same, ${tools.toLocaleString('en-US')} tools`,
        floorLabel: i === 0 ? 'cold `resolveToolset`' : '',
        floor: value,
        values: [warm],
        target: WARM_TARGET,
      }),
    );
    rows.push(
      measured({
        name: `rulvar: resolveToolset, cold (${tools})`,
        comparison:
          i === 0
            ? `\`resolveToolset\`, cold (connect, sweep, admission, both hashes): ${tools.toLocaleString('en-US')} tools over ${pages} pages, input and output schemas`
            : `the same, ${tools.toLocaleString('en-US')} tools over ${pages} pages`,
        ...(i === 0 ? { floorLabel: 'connect + `client.request` sweep' } : { floorLabel: '' }),
        floor,
        values: [value],
        target: RESOLVE_TARGET,
      }),
      measured({
        name: `bound: sweep + JSON.stringify + SHA-256 (${tools})`,
        comparison: `the least a resolution that hashes its contracts can cost: that sweep, then \`JSON.stringify\` + one SHA-256 of the ${tools.toLocaleString('en-US')} listed contracts`,
        floor,
        values: [bound],
        note: bound / floor > RESOLVE_TARGET ? `(bound; already past ${RESOLVE_TARGET}×)` : '(bound)',
      }),
    );
  }
  rows.push(...warmRows);
  const hash = await benchHash(options);
  rows.push(
    measured({
      name: 'rulvar: toolsetHash, repeated',
      comparison: '`toolsetHash` of the 10,000 resolved tools again (RFC 8785 canonical JSON + SHA-256, texts memoized)',
      floorLabel: '`JSON.stringify` + SHA-256',
      floor: hash.floor,
      values: [hash.value],
      target: HASH_TARGET,
    }),
    measured({
      name: 'rulvar: toolsetHash, written afresh',
      comparison: 'the same contracts as plain objects no memo has seen, each written afresh',
      floor: hash.floor,
      values: [hash.fresh],
      note: '(reference)',
    }),
  );
  printTargets(rows);
  return rows;
}
