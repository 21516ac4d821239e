/**
 * The cost of a call against the raw SDK in the same run (resolving a toolset: resolve.bench.ts):
 *   per call   1,000 sequential calls of a tool with an inputSchema and an outputSchema over one
 *              in-memory pair. The floor is the wire itself (issue 14): a raw `tools/call`
 *              through the SDK Client's `request` with the SDK's own CallToolResultSchema, so
 *              nothing but the round trip and the result parse. `client.callTool` does more
 *              (its compiled Ajv output check) and is shown beside it for reference, as is a
 *              bare imported `execute` (the MCP call path alone, no validation, no chain).
 *              dispatchTool adds eval-free input validation, the permission chain, mapping
 *              and output validation, and is held to CALL_TARGET times the floor, with no
 *              permissions and under `{ preset: 'standard' }` alike (the tool is labelled
 *              `write`, which the preset allows: its rules are all tried, then the default).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { measured, printTargets, type Row } from './report.js';
import { library } from './library.js';
import { connectClient } from './servers.js';

const CALLS = 1_000;
const CALL_TARGET = 1.25;
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
  const imported = toolset.get('add_note');
  if (imported === undefined) throw new Error('bench: add_note was not imported');
  // A host's long-lived signal (a run's, say), handed to every call as the engine does.
  const host = new AbortController();
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
      name: 'floor: raw tools/call request',
      run: async () => {
        for (let i = 0; i < CALLS; i += 1) {
          const result = await client.request({ method: 'tools/call', params: { name: 'add_note', arguments: { title: 'hello' } } }, CallToolResultSchema);
          if (result.isError === true) throw new Error('bench call failed');
        }
      },
    },
    {
      // What every call of this library sends since tool progress (issue 28): the token alone,
      // on the same raw request. The SDK's server parses `_meta` on each request it carries.
      name: 'reference: raw tools/call request with a progressToken',
      run: async () => {
        for (let i = 0; i < CALLS; i += 1) {
          const params = { name: 'add_note', arguments: { title: 'hello' }, _meta: { progressToken: `bench-${i}` } };
          const result = await client.request({ method: 'tools/call', params }, CallToolResultSchema);
          if (result.isError === true) throw new Error('bench call failed');
        }
      },
    },
    {
      name: 'reference: client.callTool',
      run: async () => {
        for (let i = 0; i < CALLS; i += 1) {
          const result = await client.callTool({ name: 'add_note', arguments: { title: 'hello' } });
          if (result.isError === true) throw new Error('bench call failed');
        }
      },
    },
    {
      name: 'rulvar: imported execute',
      run: async () => {
        for (let i = 0; i < CALLS; i += 1) {
          const output = await imported.execute({ title: 'hello' }, { callId: `c${(n += 1)}`, toolName: 'add_note', signal: host.signal });
          if (library.isToolError(output)) throw new Error('bench call failed');
        }
      },
    },
    { name: 'rulvar: dispatchTool', run: () => dispatchAll() },
    { name: "rulvar: dispatchTool, preset 'standard'", run: () => dispatchAll(standard) },
  ];
  const callStats = await compare(calls, options);
  await Promise.all([client.close(), source.close()]);
  printTable(`per call: ${CALLS} sequential calls with input and output schemas`, callStats, calls[0]?.name ?? '');
  // The benchmarks guide gives one call's cost: medians of the whole loop divided by CALLS.
  const perCall = (name: string | undefined) => median(callStats, name ?? '') / CALLS;
  const floor = perCall(calls[0]?.name);
  const callRows = [
    measured({
      name: calls[4]?.name ?? '',
      comparison: 'one call through `dispatchTool` (input validation, chain, mapping, output validation) vs a raw `tools/call` request',
      floorLabel: 'request',
      floor,
      values: [perCall(calls[4]?.name)],
      target: CALL_TARGET,
    }),
    measured({
      name: calls[5]?.name ?? '',
      comparison: "the same under `permissions: { preset: 'standard' }`",
      floor,
      values: [perCall(calls[5]?.name)],
      target: CALL_TARGET,
    }),
    measured({
      name: calls[3]?.name ?? '',
      comparison: "a bare imported tool's `execute` (the MCP call path alone), under a host's signal",
      floor,
      values: [perCall(calls[3]?.name)],
      note: '(reference)',
    }),
    measured({
      name: calls[1]?.name ?? '',
      comparison: 'the raw request with a `progressToken` in its `_meta`, as every call of this library carries since tool progress',
      floor,
      values: [perCall(calls[1]?.name)],
      note: '(reference)',
    }),
    measured({
      name: calls[2]?.name ?? '',
      comparison: "the SDK's `client.callTool` (its own output check)",
      floor,
      values: [perCall(calls[2]?.name)],
      note: '(reference)',
    }),
  ];
  printTargets(callRows);

  return callRows;
}
