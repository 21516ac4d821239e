/**
 * Issue 4's two costs, against the raw SDK in the same run:
 *   per call   200 sequential calls of a tool with an inputSchema and an outputSchema over one
 *              in-memory pair: the SDK Client's callTool (which validates structured output
 *              with its compiled Ajv validator) versus dispatchTool (eval-free input
 *              validation, the permission chain, mapping, output validation)
 *   admission  resolving a toolset of 1,000 tools (sweep, import, schema admission, both
 *              hashes) versus the raw sweep of the same 1,000 tools
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { measured, printTargets, type Row } from './report.js';
import { library } from './library.js';
import { connectClient, dropCache, floorSweep, makePages, pagedServer } from './servers.js';

const CALLS = 200;
const CALL_TARGET = 1.3;
const NOTE = { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } }, required: ['id', 'title'] } as const;
const INPUT = { type: 'object', properties: { title: { type: 'string', maxLength: 200 } }, required: ['title'] } as const;

function noteServer(): Server {
  const server = new Server({ name: 'bench-calls', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'add_note', inputSchema: INPUT, outputSchema: NOTE }] }));
  let id = 0;
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const title = String(request.params.arguments?.['title']);
    return { content: [{ type: 'text', text: title }], structuredContent: { id: (id += 1), title } };
  });
  return server;
}

export async function benchCalls(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const client = await connectClient(noteServer());
  await client.listTools(); // the SDK validates output only for tools it has listed
  const source = library.mcp({ transport: 'inprocess', server: noteServer(), risk: { add_note: 'write' } });
  const toolset = await library.resolveToolset([source]);
  const standard = { preset: 'standard' } as const;
  let n = 0;
  const dispatchAll = async (permissions?: typeof standard) => {
    for (let i = 0; i < CALLS; i += 1) {
      const outcome = await library.dispatchTool(toolset, { id: `c${(n += 1)}`, name: 'add_note', input: { title: 'hello' } }, permissions ? { permissions } : {});
      if (outcome.status !== 'done' || outcome.result.isError) throw new Error('bench call failed');
    }
  };
  const calls: Variant[] = [
    {
      name: 'floor: client.callTool',
      run: async () => {
        for (let i = 0; i < CALLS; i += 1) {
          const result = await client.callTool({ name: 'add_note', arguments: { title: 'hello' } });
          if (result.isError === true) throw new Error('bench call failed');
        }
      },
    },
    { name: 'rulvar: dispatchTool', run: () => dispatchAll() },
    { name: "rulvar: dispatchTool, preset 'standard'", run: () => dispatchAll(standard) },
  ];
  const callStats = await compare(calls, options);
  await Promise.all([client.close(), source.close()]);
  printTable(`per call: ${CALLS} sequential calls with input and output schemas`, callStats, calls[0]?.name ?? '');
  // The README gives one call's cost: medians of the whole loop divided by CALLS.
  const perCall = (name: string | undefined) => median(callStats, name ?? '') / CALLS;
  const callRows = [
    measured({
      name: calls[1]?.name ?? '',
      comparison: 'one call through `dispatchTool` (validation, chain, mapping) vs `client.callTool`',
      floorLabel: '',
      floor: perCall(calls[0]?.name),
      values: [perCall(calls[1]?.name)],
      target: CALL_TARGET,
    }),
    measured({
      name: calls[2]?.name ?? '',
      comparison: "the same under `permissions: { preset: 'standard' }`",
      floor: perCall(calls[0]?.name),
      values: [perCall(calls[2]?.name)],
      target: CALL_TARGET,
    }),
  ];
  printTargets(callRows);

  const pages = makePages(1_000, 10);
  const floorServer = pagedServer(pages);
  const libServer = pagedServer(pages);
  const floorClient = await connectClient(floorServer.server);
  const admitted = library.mcp({ transport: 'inprocess', server: libServer.server });
  await admitted.tools();
  const admission: Variant[] = [
    { name: 'floor: client.request sweep', run: async () => void (await floorSweep(floorClient)) },
    { name: 'rulvar: tools()', setup: () => dropCache(libServer), run: async () => void (await admitted.tools()) },
    { name: 'rulvar: resolveToolset (admission + hashes)', setup: () => dropCache(libServer), run: async () => void (await library.resolveToolset([admitted])) },
  ];
  const admissionStats = await compare(admission, options);
  await Promise.all([floorClient.close(), admitted.close()]);
  printTable('admission: 1000 tools over 10 pages', admissionStats, admission[0]?.name ?? '');
  const admissionRow = measured({
    name: admission[2]?.name ?? '',
    comparison: 'resolving 1,000 tools (sweep, admission, both hashes)',
    floorLabel: 'sweep',
    floor: median(admissionStats, admission[0]?.name ?? ''),
    values: [median(admissionStats, admission[2]?.name ?? '')],
    note: '(once per spawn)',
  });
  return [...callRows, admissionRow];
}
