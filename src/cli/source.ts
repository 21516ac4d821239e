/**
 * Turns parsed options into an `mcp()` source under declared bounds. maxSchemaBytes is not
 * passed on: mcp() would refuse the whole sweep for one oversized tool, where the inspector
 * wants to show that tool as a refused row beside the others (see inspect.ts).
 */
import { readFile } from 'node:fs/promises';
import { mcp, RulvarError, type McpCommonConfig, type McpToolSource, type ToolRisk } from '../node/index.js';
import type { InspectOptions } from './args.js';
import { usageError } from './exit.js';

export async function readRiskFile(path: string): Promise<Record<string, ToolRisk>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw usageError(`--risk ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`--risk ${path}: expected a JSON object mapping tool names to risk labels`);
  }
  // The labels themselves are checked by mcp(), which names the offending key.
  return parsed as Record<string, ToolRisk>;
}

export async function openSource(options: InspectOptions): Promise<McpToolSource> {
  const { bounds, target } = options;
  const common: McpCommonConfig = {
    maxTools: bounds.maxTools,
    maxPages: bounds.maxPages,
    timeouts: { connectMs: bounds.connectMs, listMs: bounds.listMs, discoveryMs: bounds.discoveryMs, callMs: bounds.callMs },
    ...(options.riskFile === undefined ? {} : { risk: await readRiskFile(options.riskFile) }),
  };
  try {
    return target.kind === 'stdio'
      ? mcp({ ...common, transport: 'stdio', command: target.command, args: target.args })
      : mcp({ ...common, transport: 'streamable-http', url: target.url, http: { headers: Object.fromEntries(options.headers) } });
  } catch (error) {
    // Construction only fails on what the user gave us (a bad risk label, say): a usage error.
    if (RulvarError.is(error)) throw usageError(`${error.code}: ${error.message}`);
    throw error;
  }
}
