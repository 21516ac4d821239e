/**
 * Node-side half of the workerd project: bundle test/workerd/worker.ts with esbuild the way a
 * Worker build would (browser platform, workerd/worker/browser conditions, every dependency
 * inlined), then run it in plain Miniflare. Plain, not @cloudflare/vitest-pool-workers: that
 * pool allows eval for its module runner, so nothing run there proves the code is eval-free.
 */
import { readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const bundleDir = path.join(here, '.bundle');

/** Pinned so a workerd upgrade cannot silently change behaviour; must not exceed workerd's. */
const COMPATIBILITY_DATE = '2026-04-01';

/** Which copy of the library the Worker runs: the source, or the package as tsup built it. */
export type LibSource = 'src' | 'dist';

export interface RunningWorker {
  readonly lib: LibSource;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  /** Rewrites `<bundle>.js:L:C` frames of a worker-side stack to the original files. */
  remapStack(stack: string): string;
  dispose(): Promise<void>;
}

/** Resolves the library's entry imports to dist/, so the Worker runs the published build. */
function useBuiltPackage(): Plugin {
  return {
    name: 'rulvar-dist',
    setup(b) {
      b.onResolve({ filter: /\/src\/(edge|testing)\/index\.js$/ }, (args) => {
        const entry = /\/src\/(edge|testing)\/index\.js$/.exec(args.path)?.[1] ?? 'edge';
        return { path: path.join(root, 'dist', entry, 'index.js') };
      });
    },
  };
}

/**
 * `entry` is the Worker module to bundle; the bundle is written to .bundle/<name>.js.
 * `bindings` are plain-text bindings the Worker gets in `env`.
 */
export async function startWorker(
  lib: LibSource,
  entry: string = path.join(here, 'worker.ts'),
  bindings: Record<string, string> = {},
): Promise<RunningWorker> {
  const outfile = path.join(bundleDir, `${path.basename(entry, '.ts')}.js`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    // 'browser' (not 'neutral') so a stray `node:` import fails the build instead of
    // becoming an external that workerd would refuse at load time.
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    sourcemap: 'external',
    logLevel: 'warning',
    plugins: lib === 'dist' ? [useBuiltPackage()] : [],
  });

  const map = new SourceMap(JSON.parse(await readFile(`${outfile}.map`, 'utf8')));
  // No nodejs_compat flag, no unsafeEval binding: the isolate gets Workers defaults only.
  const mf = new Miniflare({
    modules: true,
    scriptPath: outfile,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings,
  });
  await mf.ready;

  return {
    lib,
    async fetch(pathname, init) {
      // Miniflare's fetch types come from undici; the shapes match the global ones.
      const res = await mf.dispatchFetch(`http://worker${pathname}`, init as never);
      return res as unknown as Response;
    },
    remapStack: (stack) => remapStack(stack, outfile, map),
    dispose: () => mf.dispose(),
  };
}

function remapStack(stack: string, outfile: string, map: SourceMap): string {
  const file = path.basename(outfile).replace(/[.]/g, '\\.');
  const frames = new RegExp(`\\(?([^\\s()]*${file}):(\\d+):(\\d+)\\)?`, 'g');
  return stack.replace(frames, (frame, _file: string, line: string, col: string) => {
    const hit = map.findEntry(Number(line) - 1, Number(col) - 1);
    if (!('originalSource' in hit) || !hit.originalSource) return frame;
    const source = hit.originalSource.startsWith('file://')
      ? fileURLToPath(hit.originalSource)
      : path.resolve(path.dirname(outfile), hit.originalSource);
    const wrapped = frame.startsWith('(');
    const loc = `${source}:${hit.originalLine + 1}:${hit.originalColumn + 1}`;
    return wrapped ? `(${loc})` : loc;
  });
}
