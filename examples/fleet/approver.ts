/**
 * The approver: every 500 ms, takes the fleet's open approvals (engine.pending(), every run's)
 * and decides each: refunds up to 100 are allowed, larger ones denied. It runs no workflow; a
 * worker continues each run it decides. Until SIGTERM or SIGINT.
 */
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fleetEngine, openJournal } from './refunds.js';

const { pool, journal } = openJournal();
const engine = fleetEngine(journal);
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => (stopping = true));

console.log(`approver (pid ${process.pid}) is watching the inbox`);
while (!stopping) {
  for (const ask of await engine.pending()) {
    const { amount } = ask.input as { amount: number };
    const decision = amount <= 100 ? 'allow' : 'deny';
    const reason = decision === 'deny' ? 'refunds over 100 need a manager' : 'small refund';
    if (await engine.resolveExternal(ask.runId, ask.key, decision, { reason, decider: 'approver' })) {
      console.log(`approver: ${decision} ${ask.toolName} ${JSON.stringify(ask.input)} (${ask.runId})`);
    }
  }
  await sleep(500);
}
await pool.end();
