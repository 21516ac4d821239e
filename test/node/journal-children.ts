/**
 * Child processes for the file journal's cross-process tests. Fixtures are bundled once per
 * test file with esbuild into a temporary directory and run with plain `node`: through tsx a
 * child took 2.5-3 s to start on the 2-core CI box, the bundle about 0.3 s, and the crash loop
 * starts over a hundred of them.
 *
 * A child speaks in lines on stdout (`ready`, `holding`, a JSON result last) and, when it must
 * act at the same moment as its siblings, waits for one line on stdin (`go`).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Bundles {
  /** The runnable bundle of test/node/fixtures/<name>.ts. */
  path(name: string): string;
  remove(): Promise<void>;
}

export interface BundleOptions {
  /** Modules left out of the bundle (pg's optional pg-native, which is not installed). */
  readonly external?: readonly string[];
  /** Gives the ESM bundle a `require`, for CommonJS packages bundled in that require Node's own modules (pg). */
  readonly requires?: boolean;
}

export async function bundleFixtures(names: readonly string[], options: BundleOptions = {}): Promise<Bundles> {
  const outdir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-fixtures-'));
  await build({
    entryPoints: names.map((name) => fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url))),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    external: [...(options.external ?? [])],
    ...(options.requires === true ? { banner: { js: "import { createRequire as __rulvarRequire } from 'node:module'; const require = __rulvarRequire(import.meta.url);" } } : {}),
  });
  return {
    path: (name) => path.join(outdir, `${name}.mjs`),
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}

export interface Child {
  readonly pid: number;
  /** Resolves with the first stdout line `accept` takes; rejects if the child exits first. */
  line(accept: (line: string) => boolean): Promise<string>;
  /** The child's last stdout line parsed as JSON, once it exits. */
  result<T>(): Promise<T>;
  send(line: string): void;
  kill(): Promise<NodeJS.Signals | null>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChild(bundle: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${bundle}`);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  // A killed child's stdin is a closed pipe; writing to it later must not crash the test.
  child.stdin.on('error', () => undefined);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      done = true;
      if (partial !== '') lines.push(partial);
      for (const wake of waiters) wake();
      resolve({ code, signal });
    }),
  );
  const describe = () => `child ${args.join(' ')}: stdout ${JSON.stringify(lines)}, stderr ${stderr.slice(-2_000)}`;

  return {
    pid: child.pid,
    line: (accept) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(accept);
          if (found !== undefined) resolve(found);
          else if (done) reject(new Error(`exited without the line expected; ${describe()}`));
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    async result<T>() {
      const { code } = await exited;
      const last = lines.filter((l) => l !== '').at(-1);
      if (code !== 0 || last === undefined) throw new Error(`exit code ${String(code)}; ${describe()}`);
      return JSON.parse(last) as T;
    },
    send: (line) => child.stdin.write(`${line}\n`),
    async kill() {
      child.kill('SIGKILL');
      return (await exited).signal;
    },
    exited,
  };
}
