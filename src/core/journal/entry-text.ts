/**
 * One journal entry as the JSON text a store keeps. Stores that hold entries as text (the
 * Durable Object's parts, Postgres's jsonb rows) refuse, before writing anything, an entry
 * JSON cannot carry or one that is not an object: read back, it would not be an entry.
 */
import { ConfigError, describeCause } from '../errors.js';
import type { JournalEntry } from './entries.js';

/** The entry's JSON text; `index` is its place in the run, for the message. */
export function entryText(entry: JournalEntry, index: number, runId: string): string {
  let text: string | undefined;
  try {
    text = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? JSON.stringify(entry) : undefined;
  } catch (error) {
    throw new ConfigError('config.invalid_value', `journal entry ${index} of run ${JSON.stringify(runId)} is not JSON (${describeCause(error)})`);
  }
  if (text === undefined || !text.startsWith('{')) throw new ConfigError('config.invalid_value', `journal entry ${index} of run ${JSON.stringify(runId)} is not a JSON object`);
  return text;
}
