/**
 * The shared core suite as the mutation run (`npm run mutate`) sees it. Stryker instruments
 * every expression for per-test coverage, which makes CPU-heavy cases ten or more times
 * slower: the cases named below feed megabytes or hundreds of thousands of steps of hostile
 * input, and under instrumentation they either break their wall-clock bounds on an unmutated
 * build or cost tens of seconds per mutant. They are skipped here only (`npm test` runs them
 * as they are); mutants only they would kill show as surviving or uncovered, not hidden.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { coreSuite } from '../core/suite.js';
import { startProviderHost } from '../node/provider-host.js';

const HEAVY = new RegExp(
  [
    String.raw`\d MB `,
    String.raw`2\^40 values`,
    '100,000 characters',
    '100,000 deep',
    'exponential for backtracking',
    'on long strings',
    '5,000 distinct',
    '199,990 values',
    'fan-out',
    'nested past 1,000 levels',
    String.raw`×5000`,
  ].join('|'),
);

// The provider host on loopback: the adapters' redirect and body-bound cases need a real wire.
const providers = await startProviderHost();
afterAll(() => providers.close());

coreSuite({
  describe,
  it: (name, body, timeoutMs) => (HEAVY.test(name) ? it.skip : it)(name, body, timeoutMs),
  expect,
  lib: await import('../../src/node/index.js'),
  runtime: 'node',
  providerHost: () => providers,
});
