/**
 * The process group of a stdio server, from spawn until nothing in it is left. The child is
 * spawned detached, so it leads a group of its own and signalling the negative pid reaches
 * everything it started, such as the real server behind `npx` or a shell.
 *
 * The group outlives its leader: a wrapper that exits after starting the real server, or a
 * leader that crashes, leaves its workers running. So the group, not the leader, is what
 * gets ended: by close(), whether or not the leader is still there, and at once when the
 * leader exits on its own, so nothing survives it even if the host never calls close().
 *
 * Pid reuse: Linux keeps a pgid reserved while any member of the group lives (zombies
 * included), so a group that still answers signal 0 is still ours. Once it is observed empty
 * the number is free for a stranger, and it is never signalled again.
 */
import type { ChildProcess } from 'node:child_process';
import process from 'node:process';
import { settledWithin } from '../core/async.js';

/** stdin closed by close(): a well-behaved server exits on its own within this. */
const GRACE_MS = 1_000;
/** SIGTERM to SIGKILL when close() ends a running server. */
const TERM_MS = 2_000;
/** SIGTERM to SIGKILL once the leader is gone: the server is over, its workers get a moment. */
const ORPHAN_TERM_MS = 500;
/** SIGKILL to giving up (a process in uninterruptible sleep cannot be waited out). */
const KILL_MS = 1_000;
const POLL_MS = 25;

export class ProcessGroup {
  /** Set once signal 0 found nobody: from then on the pgid may belong to someone else. */
  private empty = false;
  private closing = false;
  private ending: Promise<void> | undefined;
  private readonly exited: Promise<void>;
  /** POSIX groups; on Windows there is only the child itself to signal. */
  private readonly pgid: number | undefined;

  /** Call right after spawn(), so the leader's exit cannot be missed. */
  constructor(private readonly child: ChildProcess) {
    this.pgid = process.platform === 'win32' ? undefined : child.pid;
    // No pid: the spawn failed and there is nothing to end.
    this.empty = child.pid === undefined;
    this.exited = new Promise((resolve) => {
      child.once('exit', () => {
        resolve();
        // An exit close() asked for is close()'s to follow up; any other one ends the group now.
        if (!this.closing) void this.end(ORPHAN_TERM_MS);
      });
    });
  }

  /**
   * Ends the server and everything in its group: stdin EOF first (the polite MCP shutdown)
   * while the leader runs, then SIGTERM and SIGKILL to the group, each step bounded, so it
   * takes at most GRACE_MS + TERM_MS + KILL_MS. Ending already under way is joined.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.ending === undefined && !this.empty && this.leaderRunning()) {
      this.child.stdin?.end();
      await settledWithin(this.exited, GRACE_MS);
    }
    await this.end(TERM_MS);
    // Pipes keep the host's event loop alive; drop them even if a process ignored SIGKILL.
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.child.stdin?.destroy();
  }

  /** SIGTERM, a wait, SIGKILL, a wait: once per group, however many ask. */
  private end(termMs: number): Promise<void> {
    this.ending ??= (async () => {
      for (const [signal, waitMs] of [['SIGTERM', termMs], ['SIGKILL', KILL_MS]] as const) {
        if (!this.alive()) return;
        this.signal(signal);
        await waitUntil(() => !this.alive(), waitMs);
      }
    })();
    return this.ending;
  }

  private alive(): boolean {
    if (this.empty) return false;
    if (this.pgid === undefined) return this.leaderRunning();
    try {
      process.kill(-this.pgid, 0);
      return true;
    } catch {
      // ESRCH: no member left. EPERM: what is left is not ours to signal any more.
      this.empty = true;
      return false;
    }
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      if (this.pgid === undefined) this.child.kill(signal);
      else process.kill(-this.pgid, signal);
    } catch {
      // Gone between the check and the signal.
    }
  }

  private leaderRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
