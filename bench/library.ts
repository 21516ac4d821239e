/**
 * The library under measurement, loaded as it ships: `npm run bench` first bundles src/node
 * with esbuild, which is what tsup runs to build dist (same target, no minifying, dependencies
 * external), into node_modules/.cache so the bench never touches dist/. Running the sources
 * through tsx instead would time its keepNames wrappers (`__name`) around every closure the
 * importer creates, which is dev-loader overhead no user pays.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Library = typeof import('../src/node/index.js');

const bundle = fileURLToPath(new URL('../node_modules/.cache/rulvar-bench/node.js', import.meta.url));
const built = existsSync(bundle);

export const library: Library = built
  ? ((await import(pathToFileURL(bundle).href)) as Library)
  : await import('../src/node/index.js');

export const libraryOrigin = built
  ? 'esbuild bundle of src/node (npm run bench builds it first)'
  : 'src through tsx (no bundle found: keepNames wrappers inflate the library rows)';
