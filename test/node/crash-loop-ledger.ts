/**
 * The crash loop's bookkeeping: what each process of one iteration did (model requests and
 * side effects, from the lines the child writes) set against what the journal held before it
 * started and after it ended. The durability promise it checks, per process:
 *   - a model turn or a tool result already journaled is never requested or run again;
 *   - whatever a process requested or ran and did not journal, it was killed before it could
 *     (the at-least-once window: the request or the side effect happened, its entry did not);
 *   - a killed process leaves at most one thing in that window: its turns and calls run one
 *     after the other, each journaled before the next begins, so an engine that put off
 *     journaling (results kept until the agent ends) would leave several;
 *   - across processes, each turn was requested, and each call run, once plus the number of
 *     times it fell into that window;
 *   - every execution of a call carried the same idempotency key, and no two calls shared one.
 */
import { readFileSync } from 'node:fs';
import type { JournalEntry } from '../../src/core/journal/entries.js';

export interface Snapshot {
  readonly entries: number;
  readonly turns: ReadonlySet<number>;
  readonly calls: ReadonlySet<string>;
  readonly ended: boolean;
}

export function snapshotOf(entries: readonly JournalEntry[]): Snapshot {
  const turns = new Set<number>();
  const calls = new Set<string>();
  for (const entry of entries) {
    if (entry.type === 'turn') turns.add(entry.turn);
    if (entry.type === 'tool') calls.add(entry.result.callId);
  }
  // Lease entries (the engine's lease on a store without claim) are no part of the run.
  return { entries: entries.filter((e) => e.type !== 'lease').length, turns, calls, ended: entries.some((e) => e.type === 'run:end') };
}

export interface Process {
  readonly tag: string;
  readonly killed: boolean;
  readonly before: Snapshot;
  readonly after: Snapshot;
}

export interface Repeats {
  /** Model requests made again because a kill landed between the request and its journal entry. */
  readonly requests: number;
  /** Side effects repeated because a kill landed between the effect and its tool entry. */
  readonly effects: number;
}

/** Lines `<tag> <what>` of a child's log, grouped by tag. */
function byTag(file: string): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // No line written: no request made, no effect run.
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    const tag = line.slice(0, space);
    grouped.set(tag, [...(grouped.get(tag) ?? []), line.slice(space + 1)]);
  }
  return grouped;
}

/**
 * Checks the promise for one iteration and counts its window repeats; throws, naming the
 * process and the turn or call, on any breach.
 */
export function account(processes: readonly Process[], requestsFile: string, effectsFile: string): Repeats {
  const requests = byTag(requestsFile);
  const effects = idempotencyChecked(byTag(effectsFile));
  const windowed = new Map<string, string[]>();
  const check = (
    what: string,
    done: Map<string, string[]>,
    journaled: (s: Snapshot) => ReadonlySet<string>,
  ): number => {
    let repeats = 0;
    const total = new Map<string, number>();
    const windows = new Map<string, number>();
    for (const p of processes) {
      const mine = done.get(p.tag) ?? [];
      if (new Set(mine).size !== mine.length) throw new Error(`${p.tag} made a ${what} twice: ${mine.join(', ')}`);
      for (const item of mine) {
        total.set(item, (total.get(item) ?? 0) + 1);
        if (journaled(p.before).has(item)) throw new Error(`${p.tag} made ${what} ${item} although it was journaled before it started`);
        if (journaled(p.after).has(item)) continue;
        if (!p.killed) throw new Error(`${p.tag} made ${what} ${item}, was not killed, and did not journal it`);
        windowed.set(p.tag, [...(windowed.get(p.tag) ?? []), `${what} ${item}`]);
        windows.set(item, (windows.get(item) ?? 0) + 1);
        repeats += 1;
      }
    }
    const final = processes.at(-1)?.after;
    for (const item of final === undefined ? [] : journaled(final)) {
      const expected = 1 + (windows.get(item) ?? 0);
      if (total.get(item) !== expected) throw new Error(`${what} ${item} happened ${total.get(item) ?? 0} times, not ${expected}`);
    }
    return repeats;
  };
  const repeats = {
    requests: check('model request', requests, (s) => new Set([...s.turns].map(String))),
    effects: check('side effect', effects, (s) => s.calls),
  };
  for (const [tag, items] of windowed) {
    if (items.length > 1) throw new Error(`${tag} was killed with ${items.length} things done and not journaled (${items.join(', ')}); at most one can be in the window`);
  }
  return repeats;
}

/**
 * Effect lines are `<callId> <idempotencyKey>`: checks that each call kept one key through
 * every process that ran it and that keys are distinct, then hands on the call ids alone.
 */
function idempotencyChecked(effects: Map<string, string[]>): Map<string, string[]> {
  const keyOf = new Map<string, string>();
  const callOf = new Map<string, string>();
  const calls = new Map<string, string[]>();
  for (const [tag, lines] of effects) {
    calls.set(
      tag,
      lines.map((line) => {
        const [callId = '', key = ''] = line.split(' ');
        if (key === '' || key === 'undefined') throw new Error(`${tag} ran ${callId} with no idempotency key`);
        const known = keyOf.get(callId) ?? key;
        if (known !== key) throw new Error(`${callId} ran under idempotency key ${key} in ${tag}, ${known} before`);
        const owner = callOf.get(key) ?? callId;
        if (owner !== callId) throw new Error(`calls ${owner} and ${callId} share idempotency key ${key}`);
        keyOf.set(callId, key);
        callOf.set(key, callId);
        return callId;
      }),
    );
  }
  return calls;
}
