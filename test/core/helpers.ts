/** Small helpers the shared suites use in every runtime. */
import type { ToolDef, ToolResult } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';

/** Runs `fn` (sync or async) and returns what it threw or rejected with; fails if nothing. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, but it succeeded');
}

/** Asserts a ConfigError (by the library's own guard) with this code; returns its message. */
export async function expectConfigError(h: SuiteHarness, fn: () => unknown, code: string): Promise<string> {
  const error = await caught(fn);
  h.expect(h.lib.ConfigError.is(error)).toBe(true);
  h.expect((error as { code: string }).code).toBe(code);
  return (error as Error).message;
}

/** Asserts a SourceError with this code; returns its message. */
export async function expectSourceError(h: SuiteHarness, fn: () => unknown, code: string): Promise<string> {
  const error = await caught(fn);
  h.expect(h.lib.SourceError.is(error)).toBe(true);
  h.expect((error as { code: string }).code).toBe(code);
  return (error as Error).message;
}

/** Finds a tool by final name or fails naming what was there. */
export function pick(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name} in [${tools.map((t) => t.name).join(', ')}]`);
  return found;
}

let callCounter = 0;

/** Executes a tool the way a dispatcher would and returns the canonical result. */
export async function run(h: SuiteHarness, tool: ToolDef, input: unknown, signal?: AbortSignal): Promise<ToolResult> {
  callCounter += 1;
  const callId = `call-${callCounter}`;
  const ctx = { callId, toolName: tool.name, signal: signal ?? new AbortController().signal };
  try {
    return h.lib.toToolResult(callId, tool.name, { value: await tool.execute(input, ctx) });
  } catch (thrown) {
    return h.lib.toToolResult(callId, tool.name, { thrown });
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling; fails after `timeoutMs` naming `what`. */
export async function until(check: () => boolean, what: string, timeoutMs = 2_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * The latest a wait bounded by `boundMs` may end and still count as honouring it: the bound,
 * half of it again, and 250 ms. The 250 ms are for the one-off work after a timer fires
 * (noticing the page or the exit, building the refusal) while both cores are busy elsewhere:
 * a 300 ms deadline was seen to end 40 ms late idle, 180 ms late beside three CPU hogs, and
 * 310 ms late beside tsc and eslint, which is where a smaller constant failed. Half the bound
 * is for waits that run late in proportion to their length, such as a 25 ms polling loop
 * woken late on every turn. The figure still lets a test catch a doubled bound, which ends
 * past it for every bound over 500 ms (2b > 1.5b + 250): tests that time a bound give it 600.
 */
export function within(boundMs: number): number {
  return boundMs * 1.5 + 250;
}

/**
 * What began at `from` and ended at `to` waited `boundMs` out and ended within(boundMs). The
 * 10 ms allow for a timer that fires early by Date.now(), which browsers coarsen.
 */
export function expectHonoured(h: SuiteHarness, from: number, to: number, boundMs: number): void {
  h.expect(to - from).toBeGreaterThanOrEqual(boundMs - 10);
  h.expect(to - from).toBeLessThan(within(boundMs));
}
