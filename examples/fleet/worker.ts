/**
 * A worker: `tsx examples/fleet/worker.ts <name> [orders…]` starts a run per order given, then
 * works every run of the fleet that has work (a decided approval, a passed deadline, a run
 * whose worker died) until SIGTERM or SIGINT. Several workers share the journal; each run is
 * worked by one of them at a time (its lease).
 */
import process from 'node:process';
import { fleetEngine, openJournal, refunds } from './refunds.js';

const [name = 'worker', ...orders] = process.argv.slice(2);
const { pool, journal } = openJournal();
const engine = fleetEngine(journal);
const stop = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());

for (const order of orders) {
  const handle = engine.run(refunds, order, { runId: `refund-${order}` });
  void handle.result.then((outcome) => console.log(`${name}: run ${handle.runId} ${outcome.status}`));
}
console.log(`${name} (pid ${process.pid}) is working`);
await engine.work({ workflows: [refunds], signal: stop.signal });
await pool.end();
console.log(`${name} stopped`);
