/**
 * The shared core suite as the mutation run (`npm run mutate`) sees it. Stryker instruments
 * every expression for per-test coverage, which makes CPU-heavy cases several times slower;
 * the cases named below assert wall-clock bounds over megabytes of hostile input, so under
 * instrumentation they fail on an unmutated build. They are skipped here only (`npm test`
 * runs them as they are); mutants only they cover are reported as not covered, not hidden.
 */
import { describe, expect, it } from 'vitest';
import { coreSuite } from '../core/suite.js';

const WALL_CLOCK = /\d MB |2\^40 values/;

coreSuite({
  describe,
  it: (name, body, timeoutMs) => (WALL_CLOCK.test(name) ? it.skip : it)(name, body, timeoutMs),
  expect,
  lib: await import('../../src/node/index.js'),
  runtime: 'node',
});
