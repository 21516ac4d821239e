/**
 * What the Postgres test files share: the run's one server (RULVAR_TEST_POSTGRES_URL, or the
 * throwaway server the first file to ask starts and postgres-global-setup.ts stops), pools
 * that are ended after the file, and a fresh table name per test so files running at once
 * never meet. Tables made on a server of your own are dropped after the file.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { startPostgres } from './postgres-server.js';

export const EXTERNAL_URL = process.env['RULVAR_TEST_POSTGRES_URL'] || undefined;

let shared: Promise<string> | undefined;

/** The URL of the run's server, starting it when this is the first file to ask. */
export function sharedPostgresUrl(): Promise<string> {
  return (shared ??= EXTERNAL_URL !== undefined ? Promise.resolve(EXTERNAL_URL) : startOrJoin());
}

async function startOrJoin(): Promise<string> {
  const { state, ownerPid } = inject('rulvarPostgres');
  const recorded = path.join(state, 'server.json');
  const failed = path.join(state, 'failed.txt');
  try {
    await mkdir(path.join(state, 'starting'));
  } catch {
    // Another file is starting it: wait for its record (two minutes covers an apt install).
    for (const started = Date.now(); Date.now() - started < 300_000; await sleep(100)) {
      const url = await readFile(recorded, 'utf8').then((text) => (JSON.parse(text) as { url: string }).url, () => undefined);
      if (url !== undefined) return url;
      const why = await readFile(failed, 'utf8').catch(() => undefined);
      if (why !== undefined) throw new Error(`the shared Postgres server failed to start: ${why}`);
    }
    throw new Error('the shared Postgres server did not start within 300 s');
  }
  try {
    const server = await startPostgres({ ownerPid });
    await writeFile(`${recorded}.tmp`, JSON.stringify({ ...server.record, url: server.url }), { mode: 0o600 });
    await rename(`${recorded}.tmp`, recorded);
    return server.url;
  } catch (error) {
    await writeFile(failed, (error as Error).message);
    throw error;
  }
}

/** Starts (or joins) the shared server before the file's tests, outside their timeouts. */
export function withSharedServer(): void {
  beforeAll(() => sharedPostgresUrl(), 300_000);
}

const pools: pg.Pool[] = [];
const tables: string[] = [];

/** A pool on `url` (the shared server by default), ended after the file. */
export async function openPool(config: pg.PoolConfig = {}, url?: string): Promise<pg.Pool> {
  // Idle clients close after a second: files running at once keep few connections open.
  const pool = new pg.Pool({ connectionString: url ?? (await sharedPostgresUrl()), max: 4, idleTimeoutMillis: 1_000, ...config });
  // An idle client whose server went away reports it here; the test sees it on its next query.
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

/** A table name no other test uses. */
export function freshTable(): string {
  const name = `t_${Math.random().toString(36).slice(2, 12)}`;
  tables.push(name);
  return name;
}

afterAll(async () => {
  // A client a failed test left checked out would hold pool.end() forever: give it 5 s.
  await Promise.all(pools.splice(0).map((pool) => Promise.race([pool.end().catch(() => undefined), sleep(5_000)])));
  if (EXTERNAL_URL !== undefined && tables.length > 0) {
    const cleanup = new pg.Pool({ connectionString: EXTERNAL_URL, max: 1 });
    for (const table of tables) await cleanup.query(`DROP TABLE IF EXISTS "${table}", "${table}_lease"`).catch(() => undefined);
    await cleanup.end();
  }
});
