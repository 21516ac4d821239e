/**
 * Unit tests of workDue (src/core/engine/work-due.ts): whether `engine.work()` has something to
 * do for a run, read from its journal alone. Not started or ended: nothing. Otherwise due when
 * an open approval's deadline has passed (at its exact millisecond: timed out), when no
 * approval is open, or when an agent neither ended nor waits while another waits; else
 * suspended, with the earliest deadline of its open approvals.
 */
import { describe, expect, it } from 'vitest';
import { entry } from '../../src/core/engine/entries.js';
import { RunLog } from '../../src/core/engine/run-log.js';
import { workDue } from '../../src/core/engine/work-due.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { memoryJournal } from '../../src/core/journal/memory.js';
import { approvalEntry } from './approval-entry.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const start = entry({ type: 'run:start', workflow: 'w', args: null, at: iso(NOW - 60_000) });
const spawn = (agent: string) => entry({ type: 'spawn', agent, model: 'scripted:m', prompt: 'go', toolsetHash: 'h', authorityHash: 'a' });
const agentEnd = (agent: string) => entry({ type: 'agent:end', agent, text: 'done', turns: 1 });
const resolved = (key: string) => entry({ type: 'resolution', key, decision: 'allow', by: 'external', at: iso(NOW) });
/** An approval asked by `agent`, due at `at` (epoch ms) when given. */
const asked = (key: string, agent = 'a', at?: number) => ({ ...approvalEntry(key, at === undefined ? undefined : iso(at)), agent }) as JournalEntry;

async function logOf(entries: JournalEntry[]): Promise<RunLog> {
  const store = memoryJournal();
  if (entries.length > 0) await store.append('r', entries, 0);
  return RunLog.load(store, 'r');
}

describe('workDue', () => {
  it('a run never started, or ended, has nothing due whatever else it holds', async () => {
    expect(workDue(await logOf([]), NOW)).toEqual({ due: false });
    expect(workDue(await logOf([start, spawn('a'), asked('k', 'a', NOW - 1), entry({ type: 'run:end', value: 1 })]), NOW)).toEqual({ due: false });
  });

  it('no open approval: due (a resolution to apply, or a holder that stopped mid-run), not timed out', async () => {
    expect(workDue(await logOf([start]), NOW)).toEqual({ due: true });
    expect(workDue(await logOf([start, spawn('a'), asked('k'), resolved('k')]), NOW)).toEqual({ due: true });
  });

  it('an open approval with no deadline: suspended, with no deadline to report', async () => {
    const due = workDue(await logOf([start, spawn('a'), asked('k')]), NOW);
    expect(due).toEqual({ due: false });
    expect('deadline' in due).toBe(false);
  });

  it('a deadline is due at its exact millisecond, not one before; a journaled deadline that does not parse has passed', async () => {
    const log = await logOf([start, spawn('a'), asked('k', 'a', NOW)]);
    expect(workDue(log, NOW - 1)).toEqual({ due: false, deadline: NOW });
    expect(workDue(log, NOW)).toEqual({ due: true, timedOut: true });
    const unparsable = await logOf([start, spawn('a'), { ...approvalEntry('k', 'not a date'), agent: 'a' } as JournalEntry]);
    expect(workDue(unparsable, NOW)).toEqual({ due: true, timedOut: true });
  });

  it('suspended on several: the earliest open deadline, whatever the order they were asked in; a resolved one does not count', async () => {
    const log = await logOf([start, spawn('a'), asked('late', 'a', NOW + 3_000), asked('early', 'a', NOW + 1_000), asked('none', 'a'), asked('gone', 'a', NOW + 10), resolved('gone')]);
    expect(workDue(log, NOW)).toEqual({ due: false, deadline: NOW + 1_000 });
    // One passed among them: due at once, timed out.
    const passed = await logOf([start, spawn('a'), asked('later', 'a', NOW + 5_000), asked('passed', 'a', NOW - 5)]);
    expect(workDue(passed, NOW)).toEqual({ due: true, timedOut: true });
  });

  it('an agent that neither ended nor waits, beside one that waits: due; ended agents and waiting ones are not', async () => {
    expect(workDue(await logOf([start, spawn('a'), spawn('b'), asked('k', 'a', NOW + 1_000)]), NOW)).toEqual({ due: true });
    // b ended: only a is live, and it waits.
    expect(workDue(await logOf([start, spawn('a'), spawn('b'), agentEnd('b'), asked('k', 'a', NOW + 1_000)]), NOW)).toEqual({ due: false, deadline: NOW + 1_000 });
    // Both wait, on approvals of their own.
    expect(workDue(await logOf([start, spawn('a'), spawn('b'), asked('ka', 'a'), asked('kb', 'b', NOW + 2_000)]), NOW)).toEqual({ due: false, deadline: NOW + 2_000 });
  });

  it('reads the clock when given none', async () => {
    const log = await logOf([start, spawn('a'), asked('k', 'a', Date.now() - 1)]);
    expect(workDue(log)).toEqual({ due: true, timedOut: true });
    const later = await logOf([start, spawn('a'), asked('k', 'a', Date.now() + 60_000)]);
    expect(workDue(later).due).toBe(false);
  });
});
