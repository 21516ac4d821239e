/**
 * postgresJournal's append latency on loopback PostgreSQL, against raw INSERTs of the same
 * rows into an identical table through the same pool, timed one by one and interleaved:
 *   raw INSERT                   one statement, autocommit (the rawest floor; target <= 1.3x)
 *   raw BEGIN/INSERT/COMMIT      the same row in an explicit transaction (printed beside it)
 *   postgresJournal append       the store's one statement: the compare-and-set and a NOTIFY
 *   postgresJournal fenced       the same through a lease, which also locks the lease row
 * Only runs with a server: RULVAR_TEST_POSTGRES_URL, or a throwaway one with fsync on
 * (test/node/postgres-server.ts) when PostgreSQL's binaries are on this machine. The store is
 * loaded from the sources: a database round trip dwarfs what tsx's wrappers cost.
 */
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { JournalEntry } from '../src/core/index.js';
import { postgresJournal, type JournalLease } from '../src/postgres/index.js';
import { startPostgres, type PostgresServer } from '../test/node/postgres-server.js';
import { measured, printTargets, type Row } from './report.js';

const APPENDS_PER_ROUND = 20;
const TARGET = 1.3;

/** A model turn asking for a tool (about 0.6 KB), then that call's result (about 1 KB): a turn boundary. */
function payload(n: number): JournalEntry {
  const turn = { v: 1, type: 'turn', agent: 'a1', turn: n, response: { text: `Record ${n} is next: I will look it up and compare its owner and status with the previous one before deciding.`, toolCalls: [{ id: `call_${n}`, name: 'lookup', input: { id: `rec-${n}`, fields: ['status', 'owner', 'updatedAt', 'notes'] } }], stopReason: 'tool_calls', usage: { inputTokens: 900 + n, outputTokens: 48 } } };
  const tool = { v: 1, type: 'tool', agent: 'a1', turn: n, index: 0, result: { callId: `call_${n}`, toolName: 'lookup', isError: false, output: { id: `rec-${n}`, status: 'open', owner: 'team-billing', notes: 'Customer asked for a revised invoice; waiting on finance to confirm the amount. '.repeat(6) } }, audit: { verdict: 'allow', layer: 'default' } };
  return (n % 2 === 0 ? turn : tool) as unknown as JournalEntry;
}

export async function serverUrl(): Promise<{ url: string; server?: PostgresServer } | undefined> {
  const given = process.env['RULVAR_TEST_POSTGRES_URL'];
  if (given) return { url: given };
  try {
    const server = await startPostgres({ durable: true });
    return { url: server.url, server };
  } catch (error) {
    process.stdout.write(`\npostgres: skipped (no server: set RULVAR_TEST_POSTGRES_URL or install PostgreSQL; ${(error as Error).message.split('\n')[0]})\n`);
    return undefined;
  }
}

export async function benchPostgres(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const found = await serverUrl();
  if (found === undefined) return [];
  const pool = new pg.Pool({ connectionString: found.url, max: 2 });
  const table = `bench_${process.pid}`;
  try {
    const store = postgresJournal({ pool, table });
    await store.load('warm');
    await pool.query(`DROP TABLE IF EXISTS "${table}_raw"; CREATE TABLE "${table}_raw" (LIKE "${table}" INCLUDING ALL)`);
    const lease: JournalLease = await store.claim!('fenced', { holder: 'bench', ms: 600_000 });
    const insert = `INSERT INTO "${table}_raw" (run_id, position, entry) VALUES ($1, $2, $3)`;
    const lengths = new Map<string, number>();
    const next = (runId: string) => {
      const n = lengths.get(runId) ?? 0;
      lengths.set(runId, n + 1);
      return n;
    };
    const variants: { name: string; append: () => Promise<void> }[] = [
      { name: 'raw INSERT', append: async () => void (await pool.query(insert, ['raw', next('raw'), JSON.stringify(payload(lengths.get('raw') ?? 0))])) },
      {
        name: 'raw BEGIN/INSERT/COMMIT',
        append: async () => {
          const client = await pool.connect();
          try {
            const n = next('tx');
            await client.query('BEGIN');
            await client.query(insert, ['tx', n, JSON.stringify(payload(n))]);
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        },
      },
      { name: 'postgresJournal append', append: async () => { const n = next('store'); await store.append('store', [payload(n)], n); } },
      { name: 'postgresJournal fenced append', append: async () => { const n = next('fenced'); await lease.append([payload(n)], n); } },
    ];
    const samples = variants.map(() => [] as number[]);
    const rounds = (options.warmup + options.iterations) * APPENDS_PER_ROUND;
    for (let i = 0; i < rounds; i += 1) {
      for (let k = 0; k < variants.length; k += 1) {
        const index = (i + k) % variants.length;
        const started = performance.now();
        await variants[index]!.append();
        if (i >= options.warmup * APPENDS_PER_ROUND) samples[index]!.push(performance.now() - started);
      }
    }
    const stats = variants.map((v, i) => ({ name: v.name, ...quantiles(samples[i]!) }));
    const floor = stats[0]!;
    const width = Math.max(...stats.map((s) => s.name.length));
    process.stdout.write(`\npostgres: single appends at a turn boundary on loopback PostgreSQL${found.server === undefined ? '' : ' (fsync on)'}, ${samples[0]!.length} per variant, interleaved\n`);
    process.stdout.write(`  ${'variant'.padEnd(width)}  ${'median ms'.padStart(9)}  ${'p99 ms'.padStart(9)}  ${'x floor'.padStart(8)}\n`);
    for (const s of stats) process.stdout.write(`  ${s.name.padEnd(width)}  ${s.median.toFixed(3).padStart(9)}  ${s.p99.toFixed(3).padStart(9)}  ${`${(s.median / floor.median).toFixed(2)}x`.padStart(8)}\n`);
    const comparisons = ['`postgresJournal` append at a turn boundary', '`postgresJournal` append through a lease (fenced)'];
    const rows = [stats[2]!, stats[3]!].map((s, i) =>
      measured({
        name: `${s.name} (median)`,
        comparison: `${comparisons[i]}, median, vs a raw \`INSERT\` of the same row`,
        floorLabel: 'raw INSERT',
        floor: floor.median,
        values: [s.median],
        target: TARGET,
      }),
    );
    printTargets(rows);
    await lease.release();
    await pool.query(`DROP TABLE IF EXISTS "${table}", "${table}_lease", "${table}_raw"`);
    return rows;
  } finally {
    await pool.end();
    await found.server?.stop();
  }
}

function quantiles(samples: readonly number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}
