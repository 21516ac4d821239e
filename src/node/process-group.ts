/**
 * Ends a stdio server and everything it started. The child leads its own process group
 * (spawned detached), so signalling the negative pid reaches grandchildren such as the
 * real server behind `npx`. Each step is bounded; close() never waits more than
 * GRACE_MS + TERM_MS + KILL_MS in total.
 */
import type { ChildProcess } from 'node:child_process';
import process from 'node:process';
import { settledWithin } from '../core/async.js';

const GRACE_MS = 1_000; // stdin closed: a well-behaved server exits on its own
const TERM_MS = 2_000;
const KILL_MS = 1_000;
const POLL_MS = 25;

export async function endProcessGroup(child: ChildProcess): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdin?.end();
  await settledWithin(exited, GRACE_MS);

  const pid = child.pid;
  const grouped = pid !== undefined && process.platform !== 'win32';
  const alive = (): boolean => (grouped ? groupAlive(pid) : child.exitCode === null && child.signalCode === null);
  for (const [signal, waitMs] of [['SIGTERM', TERM_MS], ['SIGKILL', KILL_MS]] as const) {
    if (!alive()) break;
    signalGroup(child, signal, grouped);
    await waitUntil(() => !alive(), waitMs);
  }
  // Pipes keep the host's event loop alive; drop them even if a process ignored SIGKILL.
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals, grouped: boolean): void {
  try {
    if (grouped && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // Already gone between the check and the signal.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    // ESRCH: no member left. EPERM: what is left is not ours to signal any more.
    return false;
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await delay(POLL_MS);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
