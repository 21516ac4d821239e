/**
 * The hostile-wire suites again, on the 2026-07-28 wire (test/node/modern-wire.ts): every
 * bound and guard of spec/mcp.md applies to the modern messages (a discover answer, a listen
 * stream, list pages with cache fields, calls with resultType) exactly as to the old.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { boundsSuite } from '../core/bounds.suite.js';
import { hostileWireSuite } from '../core/hostile-wire.suite.js';
import { httpCapCases } from '../core/http-cap.suite.js';
import { onWire } from '../core/wire.js';
import { malformedAnswersSuite } from '../core/malformed-answers.suite.js';
import { sweepSuite } from '../core/sweep.suite.js';
import { startLoopbackHost } from './loopback-wire.js';
import { modernHarness } from './modern-wire.js';

const host = await startLoopbackHost();
afterAll(() => host.close());

const h = modernHarness({ describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' }, host);
describe('on the 2026-07-28 wire', () => {
  sweepSuite(h);
  boundsSuite(h);
  malformedAnswersSuite(h);
  hostileWireSuite(h);
  for (const wire of h.wires ?? []) describe(onWire('the 10 MB cap', wire), () => httpCapCases(h, wire));
});
