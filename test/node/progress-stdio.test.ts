/**
 * Tool progress over stdio, against real child processes: the shared progress cases
 * (test/core/progress.suite.ts) against this repo's progress server, a flood of 100,000
 * reports through a pipe included, and the registry's reference server
 * (@modelcontextprotocol/server-everything), whose long-running operation reports progress
 * as a server written by others does.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { dispatchTool, mcp, resolveToolset, type McpConfig, type ToolProgress } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { CALL_MS, progressCases } from '../core/progress.suite.js';
import { EVERYTHING, tsServer } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node', wires: [] } as SuiteHarness;
const SERVER = fileURLToPath(new URL('./fixtures/progress-stdio.ts', import.meta.url));

describe('tool progress over stdio', () => {
  progressCases(h, async (extra) => {
    const source = mcp({ transport: 'stdio', ...tsServer(SERVER), stderr: 'ignore', ...extra } as McpConfig);
    // The child's start (tsx on a busy machine) is not part of any timed case.
    await source.tools();
    return { source, close: () => source.close() };
  }, { floodCount: 100_000, timed: true });
});

describe('tool progress from the reference server', () => {
  const operation = 'trigger-long-running-operation';
  const call = async (resetOnProgress: boolean) => {
    await using source = mcp({ transport: 'stdio', command: EVERYTHING, args: ['stdio'], stderr: 'ignore', timeouts: { callMs: CALL_MS, resetOnProgress } });
    const set = await resolveToolset([source]);
    const reports: ToolProgress[] = [];
    const outcome = await dispatchTool(set, { id: 'c1', name: operation, input: { duration: 1.5, steps: 5 } }, { onProgress: (p) => void reports.push(p) });
    if (outcome.status !== 'done') throw new Error('expected a result');
    return { result: outcome.result, reports };
  };

  it('its long-running operation (5 steps over 1.5 s) reports each step, and with resetOnProgress outlives callMs', async () => {
    const { result, reports } = await call(true);
    expect(result).toMatchObject({ isError: false });
    expect(JSON.stringify(result.output)).toContain('Long running operation completed');
    expect(reports).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
  }, 30_000);

  it('without resetOnProgress the same operation ends at callMs', async () => {
    const { result, reports } = await call(false);
    expect(result).toMatchObject({ isError: true, reason: 'timeout' });
    expect(reports.length).toBeLessThanOrEqual(2);
  }, 30_000);
});
