import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { postgresJournal } from '../src/postgres/index.js';
import { startPostgres } from '../test/node/postgres-server.js';
const server = await startPostgres({ durable: true });
const pool = new pg.Pool({ connectionString: server.url, max: 2 });
const table = 'probe';
const store = postgresJournal({ pool, table });
await store.load('warm');
await pool.query(`CREATE TABLE probe_raw (LIKE probe INCLUDING ALL)`);
const entry = JSON.stringify({ v: 1, type: 'tool', agent: 'a1', turn: 1, index: 0, result: { callId: 'c', toolName: 'lookup', isError: false, output: { notes: 'x'.repeat(500) } }, audit: { verdict: 'allow', layer: 'default' } });
const n = new Map<string, number>();
const next = (k: string) => { const v = n.get(k) ?? 0; n.set(k, v + 1); return v; };
const V: [string, () => Promise<unknown>][] = [
  ['raw insert', () => pool.query('INSERT INTO probe_raw (run_id, position, entry) VALUES ($1,$2,$3)', ['raw', next('raw'), entry])],
  ['raw insert + notify', () => pool.query("WITH i AS (INSERT INTO probe_raw (run_id, position, entry) VALUES ($1,$2,$3) RETURNING 1) SELECT pg_notify('c', $1) FROM i", ['rn', next('rn'), entry])],
  ['cte json_array no notify', () => { const p = next('cj'); return pool.query(`WITH ins AS (INSERT INTO probe_raw (run_id, position, entry) SELECT $1, $2::integer + x.o::integer - 1, x.e FROM json_array_elements($3::json) WITH ORDINALITY AS x(e, o) WHERE ($2::integer = 0 OR EXISTS (SELECT 1 FROM probe_raw WHERE run_id = $1 AND position = $2::integer - 1)) RETURNING 1) SELECT count(*) FROM ins`, ['cj', p, `[${entry}]`]); }],
  ['store append', () => { const p = next('st'); return store.append('st', [JSON.parse(entry)], p); }],
];
const S = V.map(() => [] as number[]);
for (let i = 0; i < 600; i++) for (let k = 0; k < V.length; k++) { const j = (i + k) % V.length; const t = performance.now(); await V[j]![1](); if (i >= 100) S[j]!.push(performance.now() - t); }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
const f = med(S[0]!);
V.forEach(([name], i) => console.log(name.padEnd(28), med(S[i]!).toFixed(3), (med(S[i]!) / f).toFixed(2) + 'x'));
await pool.end(); await server.stop();
