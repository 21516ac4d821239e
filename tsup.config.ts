/**
 * Builds the three published entries in ONE esbuild pass with code splitting, so the core
 * lands in shared chunks that node/, edge/ and testing/ all import. That gives one copy of
 * every class at run time (`instanceof ConfigError` agrees between `@rulvar/core/testing`
 * and `@rulvar/core`) and one set of declarations, so the .d.ts of every entry re-exports
 * the same types instead of three structurally-equal copies.
 *
 * Platform is 'neutral' for the whole pass: every non-relative import (the SDK, zod,
 * `node:*`) is external, so the platform only decides which
 * conditions esbuild would use to resolve packages, and it resolves none. That edge code
 * pulls in no Node builtin is enforced elsewhere: by the lint rule on src/core and src/edge,
 * and by test/workerd, which bundles dist/edge for the browser platform and runs it in
 * workerd without nodejs_compat.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    'node/index': 'src/node/index.ts',
    'edge/index': 'src/edge/index.ts',
    'node/engine': 'src/node/engine.ts',
    'edge/engine': 'src/edge/engine.ts',
    'node/otel': 'src/node/otel.ts',
    'edge/otel': 'src/edge/otel.ts',
    'testing/index': 'src/testing/index.ts',
    'anthropic/index': 'src/anthropic/index.ts',
    'openai/index': 'src/openai/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    'postgres/index': 'src/postgres/index.ts',
    'cli/rulvar-mcp': 'src/cli/rulvar-mcp.ts',
  },
  outDir: 'dist',
  format: ['esm'],
  target: 'es2022',
  platform: 'neutral',
  splitting: true,
  // Readable output: consumers bundle and minify it themselves, and stacks stay useful.
  minify: false,
  sourcemap: true,
  dts: true,
  clean: true,
  // Dependencies and peers are external by default in tsup; Node builtins are listed here
  // because the neutral platform does not know them (only the node entry imports them).
  // Shared chunks land in dist/ next to the entry folders (dist/chunk-*.js).
  external: [/^node:/],
});
