/**
 * The test run `npm run mutate` uses: the Node project only, without the files that test
 * src/node (stdio, signals), the built dist/ or the examples, and without the slow timing
 * runs, so that Stryker can afford to run every mutant of src/core against what covers it.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // Instrumented for per-test coverage, CPU-heavy cases run several times slower.
    testTimeout: 30_000,
    include: [
      'test/mutation/core.test.ts',
      'test/node/json-schema-suite.test.ts',
      'test/node/pattern.property.test.ts',
      'test/node/validator.property.test.ts',
      'test/node/http-loopback.test.ts',
      'test/node/handshake-bound.test.ts',
      'test/node/server-errors-stdio.test.ts',
    ],
  },
});
