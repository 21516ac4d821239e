/** `@rulvar/core/engine` on the edge: the engine alone (src/core/engine/index.ts); fileJournal refuses here. */
export * from '../core/engine/index.js';
export { fileJournal } from './file-journal.js';
