/**
 * Whether a run has work for `engine.work()`, read from its journal alone (any engine reads
 * the same answer). A run has work when it started, has not ended, and any of:
 * - an open approval's deadline passed (resuming applies its journaled timeout decision);
 * - it has no open approval at all (a resolution waits to be applied, or its holder stopped
 *   mid-run: between agents, mid-turn, or with a failure it never journaled);
 * - an agent it spawned has neither ended nor an open approval to wait on (its approval was
 *   resolved, or it was working when its holder stopped) while another agent waits.
 * Otherwise every live agent waits on an open approval: the run is suspended, and `deadline`
 * says when it next times out.
 */
import { deadlineOf } from './deadlines.js';
import type { RunLog } from './run-log.js';

export interface WorkDue {
  readonly due: boolean;
  /** Suspended: the earliest deadline of its open approvals (epoch ms), if any has one. */
  readonly deadline?: number;
  /** Whether it is due because a deadline passed (a changed-journal check does not apply). */
  readonly timedOut?: boolean;
}

const NONE: WorkDue = { due: false };

export function workDue(log: RunLog, now = Date.now()): WorkDue {
  if (log.start === undefined || log.end !== undefined) return NONE;
  const waiting = new Set<string>();
  let deadline: number | undefined;
  for (const approval of log.approvals.values()) {
    if (!log.isOpen(approval.key)) continue;
    waiting.add(approval.agent);
    const at = deadlineOf(approval);
    if (at === undefined) continue;
    if (at <= now) return { due: true, timedOut: true };
    if (deadline === undefined || at < deadline) deadline = at;
  }
  if (waiting.size === 0) return { due: true };
  for (const agent of log.spawns.keys()) if (!log.agentEnds.has(agent) && !waiting.has(agent)) return { due: true };
  return deadline === undefined ? NONE : { due: false, deadline };
}
