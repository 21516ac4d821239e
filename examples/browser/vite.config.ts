/**
 * Builds the browser demo into examples/browser/out (a static page: index.html plus hashed
 * assets). `@rulvar/core` resolves through the package's own exports map with the `browser`
 * condition, so the page gets the edge build from dist/ exactly as an installed package would.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  root: here('.'),
  // Relative asset URLs: the built page works from any directory a static server puts it in.
  base: './',
  resolve: {
    alias: [
      // The SDK's server classes import Ajv for elicitation only; keep it (and its codegen)
      // out of the page. Matches the SDK's relative import from server/index.js.
      { find: /^\.\.\/validation\/ajv-provider\.js$/, replacement: here('src/sdk-without-ajv.ts') },
    ],
  },
  build: {
    outDir: here('out'),
    emptyOutDir: true,
    target: 'es2022',
    // Source maps make the demo readable in devtools; they are not counted as page weight.
    sourcemap: true,
  },
  preview: { port: 4173, strictPort: true },
});
