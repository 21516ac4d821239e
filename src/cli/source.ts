/**
 * Turns parsed options into an `mcp()` source under declared bounds. maxSchemaBytes is not
 * passed on: mcp() would refuse the whole sweep for one oversized tool, where the inspector
 * wants to show that tool as a refused row beside the others (see inspect.ts).
 */
import { readFile } from 'node:fs/promises';
import { mcp, RulvarError, type McpCommonConfig, type McpConfig, type McpToolSource, type ToolRisk } from '../node/index.js';
import type { InspectOptions } from './args.js';
import { usageError } from './exit.js';
import { printableLog } from './terminal.js';

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

/**
 * The config `mcp()` is given: every bound flag lands here. A stdio server's stderr is passed
 * through escaped (terminal.ts), not inherited: inherited, it would reach the terminal raw.
 */
export function sourceConfig(options: InspectOptions, risk: Record<string, ToolRisk> | undefined, stderr: (text: string) => void): McpConfig {
  const { bounds, target } = options;
  const common: McpCommonConfig = {
    maxTools: bounds.maxTools,
    maxPages: bounds.maxPages,
    timeouts: { connectMs: bounds.connectMs, listMs: bounds.listMs, discoveryMs: bounds.discoveryMs, callMs: bounds.callMs },
    ...(risk === undefined ? {} : { risk }),
  };
  return target.kind === 'stdio'
    ? { ...common, transport: 'stdio', command: target.command, args: target.args, stderr: (chunk) => stderr(printableLog(chunk)) }
    : { ...common, transport: 'streamable-http', url: target.url, http: { headers: Object.fromEntries(options.headers) } };
}

export async function openSource(options: InspectOptions): Promise<McpToolSource> {
  const risk = options.riskFile === undefined ? undefined : await readRiskFile(options.riskFile);
  try {
    return mcp(sourceConfig(options, risk, (text) => process.stderr.write(text)));
  } catch (error) {
    // Construction only fails on what the user gave us (a bad risk label, say): a usage error.
    if (RulvarError.is(error)) throw usageError(`${error.code}: ${error.message}`);
    throw error;
  }
}
