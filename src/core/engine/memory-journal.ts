/**
 * The in-memory JournalStore: the default, and the reference the durable stores are tested
 * against. Entries are kept as JSON text, so what comes back is what a durable store would
 * give (no shared references with the caller, nothing that is not JSON).
 */
import { RulvarError } from '../errors.js';
import type { JournalEntry, JournalStore } from './journal.js';

export function memoryJournal(): JournalStore {
  const runs = new Map<string, string[]>();
  return {
    async load(runId) {
      return (runs.get(runId) ?? []).map((line) => JSON.parse(line) as JournalEntry);
    },
    async append(runId, entries, expectedLength) {
      const lines = runs.get(runId) ?? [];
      if (lines.length !== expectedLength) {
        throw new RulvarError(
          'journal.conflict',
          `run ${JSON.stringify(runId)} has ${lines.length} journal entries, not the ${expectedLength} this append expected`,
        );
      }
      const encoded = entries.map((entry) => JSON.stringify(entry));
      lines.push(...encoded);
      runs.set(runId, lines);
    },
  };
}
