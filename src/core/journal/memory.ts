/**
 * The in-memory JournalStore: the default, and the reference the durable stores are tested
 * against. It keeps frozen plain JSON: an entry the engine wrote is that already (see
 * json-safe.ts) and is kept as it is; anything else is copied and frozen first, so nothing a
 * caller does afterwards reaches the store. A load hands the kept entries back without
 * copying, so replaying a run costs no parse. What it refuses is what a durable store could
 * not write back (anything that is not JSON). `runs()` lists every run with an entry. Its
 * leases are a map beside the entries: two engines of one process sharing the store take
 * turns on a run like two processes would.
 */
import { ConfigError, describeCause, RulvarError } from '../errors.js';
import type { JournalEntry } from './entries.js';
import { checkLeaseRequest, leaseLost, runClaimed } from './lease-errors.js';
import { APPEND_NOW, type AppendsNow, type JournalLease, type JournalStore } from './store.js';
import { sealCopy } from './json-safe.js';

interface Held {
  readonly holder: string;
  until: number;
}

export function memoryJournal(): JournalStore {
  const runs = new Map<string, JournalEntry[]>();
  const leases = new Map<string, Held>();
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
    async claim(runId, request) {
      const { holder, ms } = checkLeaseRequest(request);
      const now = Date.now();
      const held = leases.get(runId);
      if (held !== undefined && held.holder !== holder && held.until > now) throw runClaimed(runId);
      // Each claim is a hold of its own: a lease object of an earlier claim is fenced off
      // once this one replaces it, even by the same holder.
      const mine: Held = { holder, until: now + ms };
      leases.set(runId, mine);
      // Live while it is the run's hold and unexpired: past `until` another may claim at once.
      const fenced = (): void => {
        if (leases.get(runId) !== mine || mine.until <= Date.now()) throw leaseLost(runId, holder);
      };
      const lease: JournalLease & AppendsNow = {
        runId,
        holder,
        load: () => store.load(runId),
        async append(entries, expectedLength) {
          fenced();
          appendNow(runId, entries, expectedLength);
        },
        async renew() {
          fenced();
          mine.until = Date.now() + ms;
        },
        async release() {
          if (leases.get(runId) === mine) leases.delete(runId);
        },
        [APPEND_NOW](id, entries, expectedLength) {
          fenced();
          appendNow(id, entries, expectedLength);
        },
      };
      return lease;
    },
    // Every run with an entry, in code-unit order (the order pending() and work() go by).
    async runs() {
      return [...runs].flatMap(([runId, entries]) => (entries.length > 0 ? [runId] : [])).sort();
    },
    [APPEND_NOW]: appendNow,
  };
  return store;
}
