// Mutation testing of the runtime-neutral core (`npm run mutate`; not part of `npm test`).
// Incremental: the result of every mutant is kept in reports/mutation/incremental.json, and a
// later run only re-tests mutants whose code or covering tests changed.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: ['src/core/**/*.ts', '!src/core/index.ts'],
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level constant) runs every test; there are few and they cost
  // most of the time, so they are reported as ignored instead of tested.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/report.json' },
  concurrency: 2,
  // Bounds tests wait on real timers; a mutant that slows them is caught by this timeout.
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
