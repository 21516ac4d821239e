/**
 * `@rulvar/core/engine` on Node: the engine alone (src/core/engine/index.ts) and the file
 * journal, without the MCP bus (no SDK or zod is loaded).
 *
 * @module @rulvar/core/engine
 */
export * from '../core/engine/index.js';
export { fileJournal } from './file-journal.js';
