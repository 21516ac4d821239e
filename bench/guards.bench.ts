/**
 * What the sweep's guards cost per page: a 10,000-page cursor chain (one tool per page, then
 * none), walked by the raw client.request loop and by the library, once with no bounds
 * declared (only the unconditional echo and visited-cursor guards run) and once with every
 * bound declared (maxTools, maxPages, listMs and discoveryMs, so each page also reads the
 * clock and carries a computed wire timeout). Both are "warm": the connection is open and the
 * library's cache is dropped by a real list_changed notification before each run, untimed.
 */
import { library } from './library.js';
import { compare, median, printTable, type Stats, type Variant } from './harness.js';
import { measured, type Row } from './report.js';
import { connectClient, dropCache, expectRun, floorSweep, makePages, pagedServer } from './servers.js';

const CHAIN = 10_000;
const ALL_BOUNDS = {
  maxTools: CHAIN * 2,
  maxPages: CHAIN * 2,
  timeouts: { listMs: 60_000, discoveryMs: 600_000 },
};

/** One row per chain: the floor against the range of the two library variants. */
export async function benchGuards(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const perPage of [1, 0]) {
    const stats = await chain(perPage, options);
    const per = `${perPage} tool${perPage === 1 ? '' : 's'} per page`;
    printTable(`guards: a ${CHAIN}-page cursor chain, ${per}`, stats, stats[0]?.name ?? '');
    rows.push(
      measured({
        name: `guards, ${per}`,
        comparison: `guards on a ${CHAIN.toLocaleString('en-US')}-page cursor chain, ${per}`,
        floorLabel: '',
        floor: median(stats, stats[0]?.name ?? ''),
        values: stats.slice(1).map((row) => row.median),
      }),
    );
  }
  return rows;
}

async function chain(perPage: number, options: { warmup: number; iterations: number }): Promise<Stats[]> {
  const pages = makePages(CHAIN * perPage, CHAIN);
  const floorServer = pagedServer(pages);
  const floorClient = await connectClient(floorServer.server);
  const libraries = [
    { label: 'rulvar, no bounds', server: pagedServer(pages), bounds: {} },
    { label: 'rulvar, all bounds', server: pagedServer(pages), bounds: ALL_BOUNDS },
  ].map(({ label, server, bounds }) => ({ label, server, source: library.mcp({ transport: 'inprocess', server: server.server, ...bounds }) }));
  for (const { source } of libraries) await source.tools();

  const variants: Variant[] = [
    {
      name: 'floor: client.request loop',
      run: async () => {
        const before = floorServer.lists();
        expectRun('floor tools', await floorSweep(floorClient), CHAIN * perPage);
        expectRun('floor pages', floorServer.lists() - before, CHAIN);
      },
    },
    ...libraries.map(({ label, server, source }): Variant => ({
      name: label,
      setup: () => dropCache(server),
      run: async () => {
        const before = server.lists();
        expectRun(`${label} tools`, (await source.tools()).length, CHAIN * perPage);
        expectRun(`${label} pages`, server.lists() - before, CHAIN);
      },
    })),
  ];
  try {
    return await compare(variants, options);
  } finally {
    await Promise.all([floorClient.close(), ...libraries.map(({ source }) => source.close())]);
  }
}
