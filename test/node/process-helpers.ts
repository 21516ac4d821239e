/** Process facts for the stdio tests: is a pid alive, and the command lines of our fixtures. */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import process from 'node:process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PROBE = fileURLToPath(new URL('./fixtures/stdio-probe.ts', import.meta.url));
export const WORKBENCH = fileURLToPath(new URL('../../examples/servers/workbench-stdio.ts', import.meta.url));
export const EVERYTHING = fileURLToPath(new URL('../../node_modules/.bin/mcp-server-everything', import.meta.url));

// Absolute, so a server started with another cwd still finds its loader.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** node + tsx running a TypeScript server script. */
export function tsServer(script: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', TSX, script, ...args] };
}

/**
 * Alive means running: a zombie (exited, not yet reaped) counts as gone. A pid that is not a
 * positive integer throws: it means the test never learned the pid, and calling that "gone"
 * would let the test pass without checking anything (0 and negatives would even signal groups).
 */
export function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`isAlive: ${String(pid)} is not a process id`);
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isAlive(pid);
}

/** Kills a pid left behind by a failing test, so one failure does not leak into the next. */
export function reap(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Pids of live processes whose command line contains `marker` (a unique test argument). */
export function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** What a finished node script printed, and how it exited. */
export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` with this node and `args` in `cwd`, and resolves once it exits. */
export function runScript(script: string, args: readonly string[], cwd: string): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
