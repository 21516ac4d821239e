/**
 * The test run `npm run mutate` uses: the Node project only, without the files that test
 * src/node (stdio, signals), the built dist/ or the examples, and without the slow timing
 * runs, so that Stryker can afford to run every mutant of src/core against what covers it.
 */
import { defineConfig } from 'vitest/config';
import UnitsFirst from './test/units-first.js';

export default defineConfig({
  test: {
    environment: 'node',
    // Instrumented for per-test coverage, CPU-heavy cases run several times slower.
    testTimeout: 30_000,
    // A killed mutant costs what runs before its first failing test: the unit files go first.
    sequence: { sequencer: UnitsFirst },
    // Deterministic, in-process tests only: the property tests (thousands of generated
    // cases), the child-process and socket tests cost seconds per mutant under
    // instrumentation and add few kills the core suite and the JSON Schema Test Suite miss.
    include: [
      'test/mutation/core.test.ts',
      'test/node/json-schema-suite.test.ts',
      'test/node/core-units.test.ts',
      'test/node/deadline-units.test.ts',
      'test/node/model-call-units.test.ts',
      'test/node/turn-calls-units.test.ts',
      'test/node/spawn-units.test.ts',
      'test/node/approvals-units.test.ts',
      'test/node/run-log-units.test.ts',
      'test/node/model-units.test.ts',
      'test/node/run-lease-units.test.ts',
      'test/node/model-stream-units.test.ts',
      'test/node/scripted-units.test.ts',
      'test/node/events-units.test.ts',
      'test/node/work-due-units.test.ts',
      'test/node/ended-agent-units.test.ts',
      'test/node/live-run-units.test.ts',
      'test/node/inbox-units.test.ts',
      'test/node/workflow-units.test.ts',
      'test/node/work-units.test.ts',
      'test/node/trace-span-units.test.ts',
      'test/node/engine-units.test.ts',
      'test/node/tracing-units.test.ts',
      // The adapters (src/adapters, anthropic, openai, ai-sdk) beyond the core suite's cases.
      'test/node/adapters.test.ts',
      'test/node/ai-sdk-mock.test.ts',
      'test/node/ai-sdk-hostile.test.ts',
      'test/node/ai-sdk-openai.test.ts',
      'test/node/provider-sdk-streams.test.ts',
      'test/node/sse-units.test.ts',
      'test/node/adapter-units.test.ts',
      'test/node/read-body-units.test.ts',
      'test/node/post-stream-units.test.ts',
      'test/node/anthropic-stream-units.test.ts',
      'test/node/openai-stream-units.test.ts',
      // The MCP client's pure parts at their edges (answers, results, bounds, ids).
      'test/node/mcp-answers-units.test.ts',
      'test/node/mcp-limits-units.test.ts',
      'test/node/mcp-modern-units.test.ts',
      'test/node/mcp-challenge-units.test.ts',
      'test/node/mcp-modern-answers-units.test.ts',
      'test/node/mcp-bounds-units.test.ts',
      'test/node/mcp-progress-units.test.ts',
      'test/node/mcp-sweep-units.test.ts',
      'test/node/mcp-import-units.test.ts',
      'test/node/mcp-call-units.test.ts',
      'test/node/mcp-connect-units.test.ts',
      'test/node/mcp-http-fetch-units.test.ts',
      'test/node/mcp-oauth-fetch-units.test.ts',
      'test/node/mcp-oauth-guard-units.test.ts',
      'test/node/mcp-modern-calls-units.test.ts',
      'test/node/mcp-listen-units.test.ts',
      'test/node/mcp-era-units.test.ts',
      'test/node/mcp-link-units.test.ts',
      'test/node/sse-answers.test.ts',
      // The CLI's parts in process (a child process never sees Stryker's active mutant).
      'test/node/cli-units.test.ts',
      'test/node/cli-inspect.test.ts',
      'test/node/cli-args.test.ts',
      'test/node/cli-tokenize.test.ts',
      'test/node/cli-bounds.test.ts',
    ],
  },
});
