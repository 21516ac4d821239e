/**
 * The in-memory JournalStore: the default, and the reference the durable stores are tested
 * against. It keeps frozen plain JSON: an entry the engine wrote is that already (see
 * json-safe.ts) and is kept as it is; anything else is copied and frozen first, so nothing a
 * caller does afterwards reaches the store. A load hands the kept entries back without
 * copying, so replaying a run costs no parse. What it refuses is what a durable store could
 * not write back (anything that is not JSON).
 */
import { ConfigError, describeCause, RulvarError } from '../errors.js';
import type { JournalEntry, JournalStore } from './journal.js';
import { sealCopy } from './json-safe.js';

/**
 * Where a store that can append without waiting offers to (the memory store). The engine
 * writes twice per model turn; when nothing else is queued, an append that is done when it
 * returns spares each write its promises. A symbol, so it is no part of the public contract.
 */
export const APPEND_NOW = Symbol('rulvar.appendNow');

export interface AppendsNow {
  /** `append`, done when it returns; throws what `append` would reject with. */
  [APPEND_NOW](runId: string, entries: readonly JournalEntry[], expectedLength: number): void;
}

export function appendsNow(store: JournalStore): store is JournalStore & AppendsNow {
  return typeof (store as Partial<AppendsNow>)[APPEND_NOW] === 'function';
}

export function memoryJournal(): JournalStore {
  const runs = new Map<string, JournalEntry[]>();
  const appendNow = (runId: string, entries: readonly JournalEntry[], expectedLength: number): void => {
    const kept = runs.get(runId) ?? [];
    if (kept.length !== expectedLength) {
      throw new RulvarError('journal.conflict', `run ${JSON.stringify(runId)} has ${kept.length} journal entries, not the ${expectedLength} this append expected`);
    }
    // Copied before anything is kept: an entry JSON cannot hold refuses the whole append.
    // What the engine writes is already frozen JSON of its own, kept as it is.
    const copies = entries.map((entry, i) => {
      try {
        return sealCopy(entry);
      } catch (error) {
        throw new ConfigError('config.invalid_value', `journal entry ${kept.length + i} of run ${JSON.stringify(runId)} is not JSON (${describeCause(error)})`);
      }
    });
    for (const copy of copies) kept.push(copy);
    runs.set(runId, kept);
  };
  const store: JournalStore & AppendsNow = {
    async load(runId) {
      return (runs.get(runId) ?? []).slice();
    },
    async append(runId, entries, expectedLength) {
      appendNow(runId, entries, expectedLength);
    },
    [APPEND_NOW]: appendNow,
  };
  return store;
}
