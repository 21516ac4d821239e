/**
 * `DATABASE_URL=postgres://… npx tsx examples/fleet/main.ts`: a fleet on one PostgreSQL
 * database. Starts three worker processes (the first starts six refund runs) and an approver
 * process; once the first worker's runs have asked for approval it is killed with SIGKILL, as
 * a crash would be; the other two finish its runs as the approver decides them. Prints each
 * run's answer from the journal, then stops every process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { openJournal } from './refunds.js';

const ORDERS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'];
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const start = (file: string, ...args: string[]): ChildProcess => {
  const child = spawn(process.execPath, ['--import', 'tsx', here(file), ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return child;
};

const { pool, journal } = openJournal();
const answers = async () => Promise.all(ORDERS.map(async (order) => (await journal.load(`refund-${order}`)).find((e) => e.type === 'run:end')));
const waitUntil = async (done: () => Promise<boolean>, what: string) => {
  for (const until = Date.now() + 60_000; !(await done()); await sleep(200)) if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
};

const first = start('worker.ts', 'worker-1', ...ORDERS);
const others = [start('worker.ts', 'worker-2'), start('worker.ts', 'worker-3')];
const approver = start('approver.ts');
try {
  // Once worker-1's runs have asked, it crashes while they wait.
  await waitUntil(async () => (await Promise.all(ORDERS.map(async (o) => (await journal.load(`refund-${o}`)).some((e) => e.type === 'approval')))).every(Boolean), 'the runs to ask');
  first.kill('SIGKILL');
  console.log('main: worker-1 was killed (SIGKILL); the other workers finish its runs');
  await waitUntil(async () => (await answers()).every((end) => end !== undefined), 'every run to finish');
  for (const end of await answers()) console.log(`main: ${end?.type === 'run:end' ? String(end.value) : '?'}`);
} finally {
  for (const child of [...others, approver]) child.kill('SIGTERM');
  await Promise.all([...others, approver].map((child) => new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)))));
  await pool.end();
}
