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
