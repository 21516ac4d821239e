/**
 * `npm run demo:browser`: builds examples/browser with vite and serves it on localhost. The
 * page imports `@rulvar/core` as a user's page would, which resolves to dist/, so the package
 * script runs tsup first (as `npm run demo` does). Set PORT to serve elsewhere than 4173.
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

const configFile = fileURLToPath(new URL('../examples/browser/vite.config.ts', import.meta.url));
const port = Number(process.env['PORT'] ?? 4173);

await build({ configFile, logLevel: 'warn' });
// strictPort: a demo that moved to another port would print one URL and serve another tab's.
const server = await preview({ configFile, preview: { port, strictPort: true } }).catch((error: unknown) => {
  console.error(`${error instanceof Error ? error.message : String(error)}: stop the other server, or run PORT=${port + 1} npm run demo:browser`);
  process.exit(1);
});
console.log(`Browser demo: ${server.resolvedUrls?.local[0] ?? `http://localhost:${port}/`}`);
console.log('Press Ctrl+C to stop.');
