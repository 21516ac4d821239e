/**
 * Three projects, one per runtime the package promises to support. Each runs the shared core
 * suite (test/core/suite.ts) against the entry that runtime resolves, plus its own tests:
 *   node      Node, the `node` entry (src/node)
 *   chromium  real Chromium through vitest browser mode, the edge entry (src/edge)
 *   workerd   a Node-side test that bundles a Worker and runs it in plain Miniflare
 *             (see test/workerd/runner.ts for why not @cloudflare/vitest-pool-workers)
 */
import { existsSync } from 'node:fs';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/longest-first.js';

// Debian's chromium, installed by scripts/ensure-chromium.sh: Playwright cannot download its
// own build here. CHROMIUM_PATH overrides; with neither, Playwright falls back to its own.
const chromiumPath =
  process.env['CHROMIUM_PATH'] ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

const chromiumArgs = [
  '--no-sandbox', // CI runs as root, where Chromium's sandbox refuses to start
  '--disable-gpu',
  // No network here beyond npm: stop Chromium from dialing home and stalling startup.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

// The SDK modules the suite builds fixtures from. Listed so vite pre-bundles them (and their
// zod / ajv / eventsource-parser imports) once at startup; discovered lazily instead, vite
// re-optimizes mid-run and reloads the page, which fails the file being loaded.
const sdkModules = [
  '@modelcontextprotocol/sdk/client/auth.js',
  '@modelcontextprotocol/sdk/client/index.js',
  '@modelcontextprotocol/sdk/client/streamableHttp.js',
  '@modelcontextprotocol/sdk/inMemory.js',
  '@modelcontextprotocol/sdk/server/index.js',
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js',
  '@modelcontextprotocol/sdk/types.js',
  '@modelcontextprotocol/sdk/validation/cfworker',
  '@cfworker/json-schema',
  'hono',
  'zod',
  // The traces suite's in-memory exporter.
  '@opentelemetry/sdk-trace-base',
];

// The budget of a case that sets none, in every project and in the worker's own collector
// (test/workerd/worker.ts): a harness limit, not a bound under test. Cases that bound a time
// measure it themselves; this only ends a stuck case, and two workers beside the Node 22/24
// lane make a CPU-heavy case take several times its idle time.
const CASE_TIMEOUT_MS = 20_000;

export default defineConfig({
  test: {
    // Two files at a time: most of the Node and workerd files wait on child processes,
    // sockets and timers, so a second worker fills the time the first one waits.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          testTimeout: CASE_TIMEOUT_MS,
          include: ['test/node/**/*.test.ts'],
          // One PostgreSQL server per run, started only when a Postgres test asks for it.
          globalSetup: ['test/node/postgres-global-setup.ts'],
        },
      },
      {
        optimizeDeps: { include: sdkModules },
        test: {
          name: 'chromium',
          testTimeout: CASE_TIMEOUT_MS,
          include: ['test/browser/**/*.test.ts'],
          // Hostile providers on loopback for the adapter cases (see the file).
          globalSetup: ['test/node/provider-host.setup.ts'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: {
                ...(chromiumPath === undefined ? {} : { executablePath: chromiumPath }),
                args: chromiumArgs,
              },
            }),
            instances: [{ browser: 'chromium' }],
            // Screenshots of a blank test page explain nothing and cost time on failure.
            screenshotFailures: false,
          },
        },
      },
      {
        test: {
          name: 'workerd',
          environment: 'node',
          testTimeout: CASE_TIMEOUT_MS,
          include: ['test/workerd/**/*.test.ts'],
          // Bundling and starting workerd take a few seconds; cases carry their own timeouts.
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
