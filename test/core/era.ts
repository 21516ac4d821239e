/**
 * What differs between the two revisions for the shared suites: the request that opens a
 * connection (initialize, or server/discover on the 2026-07-28 wire).
 */
import type { SuiteHarness } from './harness.js';

export const opening = (h: SuiteHarness): string => (h.modern === undefined ? 'initialize' : 'server/discover');
