/**
 * The edge entry's `fileJournal`: the same name as the Node entry's, so code written against
 * either entry type-checks against both, refusing at call time. Workers and browsers have no
 * file system to keep a journal in.
 */
import { RulvarError } from '../core/errors.js';
import type { FileJournalOptions, JournalStore } from '../core/journal/store.js';

export function fileJournal(_options: FileJournalOptions): JournalStore {
  throw new RulvarError('journal.unavailable', "fileJournal needs Node's file system; on Workers use durableObjectJournal");
}
