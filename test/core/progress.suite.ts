/**
 * Tool progress (spec/runtime.md, "Streaming, progress, traces"; docs/mcp.md, "Progress"):
 * every tools/call carries its own progressToken, the server's reports reach the caller
 * checked and coalesced, `timeouts.resetOnProgress` restarts callMs and never passes
 * maxCallMs, and neither a flood nor hostile values get past those bounds. In process and
 * over each streamable-http wire the runtime offers; stdio is test/node/progress-stdio.test.ts.
 */
import type { McpConfig, McpToolSource, ToolProgress, ToolResult } from '../../src/core/index.js';
import { createProgressServer } from '../fixtures/progress-server.js';
import { scripted } from '../../src/testing/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, expectHonoured, sleep } from './helpers.js';
import { onWire, wiresOf } from './wire.js';

/** How a case reaches the progress server, with the bounds it asks for. */
export type OpenProgress = (extra: Partial<McpConfig>) => Promise<{ readonly source: McpToolSource; close(): Promise<void> }>;

/** callMs of the timing cases: 600 ms, so that a doubled bound ends past within(600). */
export const CALL_MS = 600;
const MAX_CALL_MS = 1_200;
const INTERVAL_MS = 100;

export function progressSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;
  h.describe('tool progress: in process', () => {
    progressCases(h, async (extra) => {
      const source = mcp({ transport: 'inprocess', server: createProgressServer(), ...extra } as McpConfig);
      return { source, close: () => source.close() };
    }, { floodCount: h.runtime === 'node' ? 100_000 : 10_000, timed: true });
    defaultMaxCase(h);
  });
  for (const wire of wiresOf(h)) {
    h.describe(onWire('tool progress: streamable-http', wire), () => {
      progressCases(h, async (extra) => {
        const endpoint = await wire.serve('progress');
        const source = mcp({ transport: 'streamable-http', url: endpoint.url, http: endpoint.http, ...extra } as McpConfig);
        return { source, close: async () => (await source.close(), await endpoint.close()) };
        // workerd runs every case in one request under a bound: the timed cases run over
        // HTTP in Node (here and test/node/modern-progress.test.ts), and in process everywhere.
      }, { floodCount: 5_000, timed: h.runtime === 'node' });
    });
  }
  nativeCases(h);
  configCases(h);
}

/** One call through dispatchTool, with every progress report it delivered and when. */
async function callWithProgress(h: SuiteHarness, source: McpToolSource, name: string, input: unknown) {
  const set = await h.lib.resolveToolset([source]);
  const reports: ToolProgress[] = [];
  const started = Date.now();
  const outcome = await h.lib.dispatchTool(set, { id: 'c1', name, input }, { onProgress: (p) => void reports.push(p) });
  const ended = Date.now();
  if (outcome.status !== 'done') throw new Error('expected a result');
  return { result: outcome.result, reports, started, ended };
}

const textOf = (result: ToolResult): string => JSON.stringify(result.output);

/** Coalesced: at most one report per interval, one more at the end, each past the last. */
function expectCoalesced(h: SuiteHarness, reports: readonly ToolProgress[], elapsed: number): void {
  h.expect(reports.length).toBeGreaterThan(0);
  h.expect(reports.length).toBeLessThanOrEqual(Math.floor(elapsed / INTERVAL_MS) + 2);
  for (let i = 1; i < reports.length; i += 1) h.expect((reports[i] as ToolProgress).progress).toBeGreaterThan((reports[i - 1] as ToolProgress).progress);
}

/** How a transport runs the cases: how many reports the flood sends; whether the timed cases run. */
export interface ProgressPlan {
  readonly floodCount: number;
  readonly timed: boolean;
}

/** The cases every transport runs. */
export function progressCases(h: SuiteHarness, open: OpenProgress, { floodCount, timed }: ProgressPlan): void {
  const timedIt = timed ? h.it : () => undefined;
  const withSource = async <T>(extra: Partial<McpConfig>, body: (source: McpToolSource) => Promise<T>): Promise<T> => {
    const opened = await open(extra);
    try {
      return await body(opened.source);
    } finally {
      await opened.close();
    }
  };

  h.it('every call carries a progressToken of its own, and each report reaches the caller as sent', () =>
    withSource({}, async (source) => {
      const first = await callWithProgress(h, source, 'ticking', { ticks: 3, everyMs: 150 });
      const second = await callWithProgress(h, source, 'ticking', { ticks: 1, everyMs: 1 });
      h.expect(first.result.isError).toBe(false);
      h.expect(first.reports).toEqual([1, 2, 3].map((n) => ({ progress: n, total: 3, message: `tick ${n}` })));
      const token = (result: ToolResult) => /token (\S+?)\)/.exec(textOf(result).replaceAll('\\"', '"'))?.[1];
      h.expect(token(first.result)).toMatch(/^"[^"]+"$/);
      h.expect(token(second.result)).toMatch(/^"[^"]+"$/);
      h.expect(token(second.result)).not.toBe(token(first.result));
    }), 10_000);

  timedIt('resetOnProgress: a call reporting every 100 ms outlives callMs', () =>
    withSource({ timeouts: { callMs: CALL_MS, maxCallMs: 10_000, resetOnProgress: true } }, async (source) => {
      const { result, started, ended } = await callWithProgress(h, source, 'ticking', { ticks: 14, everyMs: 100 });
      h.expect(result).toMatchObject({ isError: false });
      h.expect(ended - started).toBeGreaterThanOrEqual(1_300);
    }), 15_000);

  timedIt('without resetOnProgress the same call ends at callMs, progress or not', () =>
    withSource({ timeouts: { callMs: CALL_MS } }, async (source) => {
      const { result, reports, started, ended } = await callWithProgress(h, source, 'ticking', { ticks: 14, everyMs: 100 });
      h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
      h.expect(reports.length).toBeGreaterThan(0);
      expectHonoured(h, started, ended, CALL_MS);
    }), 15_000);

  timedIt('resetOnProgress: a call reporting all along still ends at maxCallMs', () =>
    withSource({ timeouts: { callMs: CALL_MS, maxCallMs: MAX_CALL_MS, resetOnProgress: true } }, async (source) => {
      const { result, started, ended } = await callWithProgress(h, source, 'ticking', { ticks: 60, everyMs: 100 });
      h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
      expectHonoured(h, started, ended, MAX_CALL_MS);
    }), 15_000);

  timedIt('resetOnProgress: a call that reports nothing ends at callMs, naming the silence', () =>
    withSource({ timeouts: { callMs: CALL_MS, maxCallMs: 10_000, resetOnProgress: true } }, async (source) => {
      const { result, started, ended } = await callWithProgress(h, source, 'silent', { ms: 5_000 });
      h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
      h.expect(textOf(result)).toContain(`no progress for ${CALL_MS} ms`);
      expectHonoured(h, started, ended, CALL_MS);
    }), 15_000);

  h.it(`a flood of ${floodCount} reports reaches the caller coalesced, the last one kept`, () =>
    withSource({}, async (source) => {
      const { result, reports, started, ended } = await callWithProgress(h, source, 'flood', { count: floodCount });
      h.expect(textOf(result)).toContain(`flooded ${floodCount}`);
      expectCoalesced(h, reports, ended - started);
      h.expect(reports.at(-1)).toEqual({ progress: floodCount, total: floodCount });
    }), 60_000);

  timedIt('a server flooding reports without end cannot hold the call past maxCallMs, nor flood the caller', () =>
    withSource({ timeouts: { callMs: CALL_MS, maxCallMs: MAX_CALL_MS, resetOnProgress: true } }, async (source) => {
      const { result, reports, started, ended } = await callWithProgress(h, source, 'flood', { count: 0, forever: true });
      h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
      expectHonoured(h, started, ended, MAX_CALL_MS);
      expectCoalesced(h, reports, ended - started);
    }), 15_000);

  h.it('forged tokens, values that are not growing finite numbers, and reports after the answer are ignored; messages are bounded and cleaned', () =>
    withSource({}, async (source) => {
      const { result, reports } = await callWithProgress(h, source, 'hostile', {});
      h.expect(result).toMatchObject({ isError: false });
      await sleep(200);
      h.expect(reports).toHaveLength(2);
      const [first, second] = reports as [ToolProgress, ToolProgress];
      h.expect(Object.keys(first).sort()).toEqual(['message', 'progress']);
      h.expect(first.progress).toBe(5);
      h.expect(first.message).toHaveLength(h.lib.MAX_PROGRESS_MESSAGE);
      // The escape and the bell of its head are spaces now; the cut keeps its first 499 units.
      h.expect(first.message).toBe(` [31mred ${'x'.repeat(h.lib.MAX_PROGRESS_MESSAGE - 10)}…`);
      h.expect(second).toEqual({ progress: 6, total: 10, message: 'line one ' });
    }), 10_000);
}

/** maxCallMs left out with resetOnProgress: ten callMs windows. */
function defaultMaxCase(h: SuiteHarness): void {
  h.it('resetOnProgress without maxCallMs: the call still ends, at 10 x callMs', async () => {
    await using source = h.lib.mcp({ transport: 'inprocess', server: createProgressServer(), timeouts: { callMs: 200, resetOnProgress: true } });
    const { result, started, ended } = await callWithProgress(h, source, 'ticking', { ticks: 80, everyMs: 50 });
    h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
    expectHonoured(h, started, ended, 2_000);
  }, 15_000);
}

function nativeCases(h: SuiteHarness): void {
  const { createEngine, defineWorkflow, tool, mcp } = h.lib;
  const ANY = { type: 'object' };
  const runWith = async (tools: Parameters<typeof tool>[0][] | McpToolSource[], toolName: string, input: unknown) => {
    const model = scripted([{ toolCalls: [{ id: 'call-1', name: toolName, input }] }, 'done']);
    const defs = tools.map((t) => ('execute' in t ? tool(t) : t));
    const flow = defineWorkflow({ name: 'progress' }, (ctx) => ctx.agent('go', { tools: defs }));
    const handle = createEngine({ adapters: [model], defaults: { model: 'scripted:m' } }).run(flow, undefined);
    const events: Record<string, unknown>[] = [];
    const starts: Record<string, unknown>[] = [];
    handle.on('tool:progress', (event) => void events.push(event));
    handle.on('tool:start', (event) => void starts.push(event));
    const outcome = await handle.result;
    return { events, starts, outcome, runId: handle.runId };
  };

  h.describe('tool progress: native tools and the engine', () => {
    h.it('a native tool reports through ctx.progress; the engine emits tool:progress with the same checks, none after the call', async () => {
      const long = {
        name: 'long',
        description: 'reports',
        parameters: ANY,
        execute: async (_input: unknown, ctx: { progress?: (p: number, t?: number, m?: string) => void }) => {
          ctx.progress?.(1, 3, 'one');
          ctx.progress?.(Number.NaN);
          ctx.progress?.(0.5, 3, 'backwards');
          await sleep(150);
          ctx.progress?.(2, Number.POSITIVE_INFINITY, 'two\u0000\u001b');
          setTimeout(() => ctx.progress?.(3, 3, 'late'), 10);
          return 'ok';
        },
      };
      const { events, outcome, runId } = await runWith([long], 'long', {});
      await sleep(100);
      h.expect(outcome.status).toBe('completed');
      const agentKey = events[0]?.['agentKey'];
      h.expect(typeof agentKey).toBe('string');
      const base = { runId, agentKey, callId: 'call-1', toolName: 'long' };
      h.expect(events).toEqual([
        { ...base, progress: 1, total: 3, message: 'one' },
        { ...base, progress: 2, message: 'two  ' },
      ]);
    });

    h.it('a native tool calling ctx.progress 100,000 times in a row yields two events: the first and the last', async () => {
      const flood = {
        name: 'flood',
        description: 'floods',
        parameters: ANY,
        execute: async (_input: unknown, ctx: { progress?: (p: number, t?: number) => void }) => {
          for (let i = 1; i <= 100_000; i += 1) ctx.progress?.(i, 100_000);
          return 'flooded';
        },
      };
      const { events } = await runWith([flood], 'flood', {});
      h.expect(events.map((e) => e['progress'])).toEqual([1, 100_000]);
    });

    h.it("an MCP server's progress becomes tool:progress events for that call", async () => {
      await using source = mcp({ transport: 'inprocess', server: createProgressServer() });
      const { events, starts } = await runWith([source], 'ticking', { ticks: 2, everyMs: 150 });
      h.expect(starts).toHaveLength(1);
      h.expect(events.map((e) => [e['callId'], e['toolName'], e['progress'], e['total'], e['message']])).toEqual([
        ['call-1', 'ticking', 1, 2, 'tick 1'],
        ['call-1', 'ticking', 2, 2, 'tick 2'],
      ]);
    });
  });
}

function configCases(h: SuiteHarness): void {
  const { mcp } = h.lib;
  const server = createProgressServer();
  const make = (timeouts: unknown) => () => mcp({ transport: 'inprocess', server, timeouts } as McpConfig);
  h.describe('tool progress: configuration', () => {
    h.it('resetOnProgress must be a boolean, maxCallMs a bound no smaller than callMs', async () => {
      h.expect(await expectConfigError(h, make({ resetOnProgress: 'yes' }), 'config.invalid_value')).toContain('timeouts.resetOnProgress');
      h.expect(await expectConfigError(h, make({ maxCallMs: 0 }), 'config.invalid_value')).toContain('timeouts.maxCallMs');
      h.expect(await expectConfigError(h, make({ maxCallMs: Number.POSITIVE_INFINITY }), 'config.invalid_value')).toContain('timeouts.maxCallMs');
      h.expect(await expectConfigError(h, make({ callMs: 500, maxCallMs: 499 }), 'config.invalid_value')).toContain("'timeouts.maxCallMs' (499) must be at least 'timeouts.callMs' (500)");
      h.expect(() => make({ callMs: 500, maxCallMs: 500, resetOnProgress: true })()).not.toThrow();
      h.expect(() => make({ resetOnProgress: false })()).not.toThrow();
    });
  });
}
