/**
 * 10,000 tools over 100 pages from an in-process low-level SDK Server, three ways:
 *   floor   a raw SDK Client calling client.request(tools/list) per page
 *   naive   a raw SDK Client calling client.listTools per page
 *   rulvar  mcp({ transport: 'inprocess' }).tools(), which also imports every wire tool as a
 *           frozen ToolDef (filters, prefix, name and duplicate checks; schemas are admitted
 *           later, when a toolset is resolved: see resolve.bench.ts)
 * plus "rulvar, allow 1": the same sweep behind an allow list of one tool, so every page is
 * fetched and counted but the per-tool import is skipped; the gap between the two rulvar rows
 * is the import, the gap to the floor the sweep.
 * Measured twice. "warm": the connection is open and only tools() is timed; the library's
 * per-session cache is dropped before each run by a real list_changed notification (untimed),
 * so every run re-lists all 100 pages. "cold": each run connects (initialize handshake),
 * sweeps and closes, for all three alike.
 */
import { library } from './library.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { measured, printTargets, type Row } from './report.js';
import { connectClient, dropCache, expectRun, floorSweep, makePages, naiveSweep, pagedServer, rawClient, type CountingServer } from './servers.js';

const TOOLS = 10_000;
const PAGES = 100;
/** Issue 3's ceiling for the library against the floor. */
const TARGET = 1.25;

/** Runs `sweep` and asserts it returned `tools` tools after listing every page of `server` afresh. */
async function swept(server: CountingServer, what: string, tools: number, sweep: () => Promise<number>): Promise<void> {
  const before = server.lists();
  expectRun(`${what} tools`, await sweep(), tools);
  expectRun(`${what} pages`, server.lists() - before, PAGES);
}

export async function benchSweep(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const pages = makePages(TOOLS, PAGES);
  const [floorServer, naiveServer, libServer, allowServer] = [1, 2, 3, 4].map(() => pagedServer(pages)) as [CountingServer, CountingServer, CountingServer, CountingServer];
  const floorClient = await connectClient(floorServer.server);
  const naiveClient = await connectClient(naiveServer.server);
  const source = library.mcp({ transport: 'inprocess', server: libServer.server });
  const allowOne = library.mcp({ transport: 'inprocess', server: allowServer.server, allow: ['t0'] });
  await Promise.all([source.tools(), allowOne.tools()]);
  const warm: Variant[] = [
    { name: 'floor: client.request loop', run: () => swept(floorServer, 'floor', TOOLS, () => floorSweep(floorClient)) },
    { name: 'naive: client.listTools loop', run: () => swept(naiveServer, 'naive', TOOLS, () => naiveSweep(naiveClient)) },
    {
      name: 'rulvar: source.tools()',
      setup: () => dropCache(libServer),
      run: () => swept(libServer, 'rulvar', TOOLS, async () => (await source.tools()).length),
    },
    {
      name: 'rulvar: tools(), allow 1',
      setup: () => dropCache(allowServer),
      run: () => swept(allowServer, 'rulvar allow 1', 1, async () => (await allowOne.tools()).length),
    },
  ];
  const warmStats = await compare(warm, options);
  await Promise.all([floorClient.close(), naiveClient.close(), source.close(), allowOne.close()]);
  printTable(`sweep, warm connection: ${TOOLS} tools over ${PAGES} pages (tools() only)`, warmStats, warm[0]?.name ?? '');
  const warmFloor = median(warmStats, warm[0]?.name ?? '');
  const warmRows = [
    measured({
      name: warm[2]?.name ?? '',
      comparison: `\`tools()\`: ${TOOLS.toLocaleString('en-US')} tools over ${PAGES} pages, warm connection`,
      floorLabel: '`client.request` loop',
      floor: warmFloor,
      values: [median(warmStats, warm[2]?.name ?? '')],
      target: TARGET,
    }),
    measured({
      name: warm[3]?.name ?? '',
      comparison: 'the same behind an allow list of one tool (every page listed, one tool imported)',
      floor: warmFloor,
      values: [median(warmStats, warm[3]?.name ?? '')],
      target: TARGET,
    }),
  ];
  printTargets(warmRows);
  const naiveRow = measured({
    name: warm[1]?.name ?? '',
    comparison: 'the same, naive `client.listTools` loop for reference',
    floor: warmFloor,
    values: [median(warmStats, warm[1]?.name ?? '')],
  });

  // Clients and the source are reused across runs: a fresh SDK Client would also pay for
  // building its Ajv instance, which is not sweep work.
  const [coldFloor, coldNaive, coldLib] = [1, 2, 3].map(() => pagedServer(pages)) as [CountingServer, CountingServer, CountingServer];
  const floorReused = rawClient();
  const naiveReused = rawClient();
  const coldSource = library.mcp({ transport: 'inprocess', server: coldLib.server });
  const cold: Variant[] = [
    {
      name: 'floor: connect + request loop + close',
      run: () =>
        swept(coldFloor, 'cold floor', TOOLS, async () => {
          const client = await connectClient(coldFloor.server, floorReused);
          const count = await floorSweep(client);
          await client.close();
          return count;
        }),
    },
    {
      name: 'naive: connect + listTools loop + close',
      run: () =>
        swept(coldNaive, 'cold naive', TOOLS, async () => {
          const client = await connectClient(coldNaive.server, naiveReused);
          const count = await naiveSweep(client);
          await client.close();
          return count;
        }),
    },
    {
      name: 'rulvar: tools() + close()',
      run: () =>
        swept(coldLib, 'cold rulvar', TOOLS, async () => {
          const count = (await coldSource.tools()).length;
          await coldSource.close();
          return count;
        }),
    },
  ];
  const coldStats = await compare(cold, options);
  printTable(`sweep, cold: connect + ${TOOLS} tools over ${PAGES} pages + close`, coldStats, cold[0]?.name ?? '');
  const coldRow = measured({
    name: cold[2]?.name ?? '',
    comparison: 'cold: connect + sweep + close',
    floorLabel: '',
    floor: median(coldStats, cold[0]?.name ?? ''),
    values: [median(coldStats, cold[2]?.name ?? '')],
    target: TARGET,
  });
  printTargets([coldRow]);
  return [...warmRows, naiveRow, coldRow];
}
