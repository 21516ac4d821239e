/**
 * The in-worker side of the workerd project: a describe/it collector that the shared suite
 * registers its cases into, and a runner that executes them one after another inside a single
 * request. One request for the whole run (rather than one per case) because workerd ties I/O
 * objects (streams, pending fetches, timers) to the request that created them, and a suite
 * is free to build a fixture in one case and use it in the next, as it may under vitest.
 */

/** What the worker reports for each case; the Node side turns each into its own `it`. */
export interface CaseResult {
  readonly name: string;
  readonly ok: boolean;
  readonly durationMs: number;
  readonly error?: CaseError;
}

export interface CaseError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
  /** An assertion's two sides, so vitest on the Node side can print its usual diff. */
  readonly diff?: { readonly actual: unknown; readonly expected: unknown };
}

interface RegisteredCase {
  readonly path: readonly string[];
  readonly name: string;
  readonly body: () => unknown;
  readonly timeoutMs: number;
}

/** Separates describe levels in a case's full name, as vitest prints them. */
export const NAME_SEPARATOR = ' > ';

/** The full name the Node side uses to match a result to the test it declared. */
export const fullName = (path: readonly string[]): string => path.join(NAME_SEPARATOR);

export interface Collector {
  readonly describe: (name: string, body: () => void) => void;
  readonly it: (name: string, body: () => unknown, timeoutMs?: number) => void;
  /** Each case as its describe path plus its own name, in registration order. */
  readonly paths: () => string[][];
  readonly run: () => Promise<CaseResult[]>;
}

export function createCollector(defaultTimeoutMs: number): Collector {
  const cases: RegisteredCase[] = [];
  const path: string[] = [];
  const seen = new Set<string>();

  const describe = (name: string, body: () => void): void => {
    path.push(name);
    try {
      body();
    } finally {
      path.pop();
    }
  };

  const it = (name: string, body: () => unknown, timeoutMs?: number): void => {
    const casePath = [...path, name];
    const full = fullName(casePath);
    // Results are matched to Node-side tests by name, so a duplicate would be ambiguous.
    if (seen.has(full)) throw new Error(`duplicate test name in the shared suite: ${full}`);
    seen.add(full);
    cases.push({ path: casePath, name: full, body, timeoutMs: timeoutMs ?? defaultTimeoutMs });
  };

  const run = async (): Promise<CaseResult[]> => {
    const results: CaseResult[] = [];
    for (const c of cases) results.push(await runCase(c));
    return results;
  };

  return { describe, it, paths: () => cases.map((c) => [...c.path]), run };
}

async function runCase(c: RegisteredCase): Promise<CaseResult> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`case timed out after ${c.timeoutMs} ms (in workerd)`)),
      c.timeoutMs,
    );
  });
  try {
    // `async () => c.body()` turns a synchronous throw into a rejection, like vitest does.
    await Promise.race([(async () => c.body())(), timeout]);
    return { name: c.name, ok: true, durationMs: Date.now() - started };
  } catch (error) {
    return { name: c.name, ok: false, durationMs: Date.now() - started, error: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): CaseError {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error), stack: '' };
  const base = { name: error.name, message: error.message, stack: error.stack ?? '' };
  const assertion = error as Error & { showDiff?: boolean; actual?: unknown; expected?: unknown };
  if (assertion.showDiff !== true) return base;
  // The two sides travel as JSON, so only send them when JSON carries them exactly; a diff
  // of lossy copies (undefined dropped, class instances flattened) would mislead.
  if (!isPlainJson(assertion.actual) || !isPlainJson(assertion.expected)) return base;
  return { ...base, diff: { actual: assertion.actual, expected: assertion.expected } };
}

function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1));
  if (typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => isPlainJson(v, depth + 1));
}
