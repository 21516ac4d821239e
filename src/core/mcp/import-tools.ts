/**
 * Turns the wire tool list into ToolDefs: filter on original names (deny wins, omitted allow
 * means all), prefix, check every final name and every duplicate, then attach the host's
 * approval and risk decisions. Server annotations (readOnlyHint and the rest) are ignored
 * for policy on purpose: a server does not get to declare itself safe. With
 * `onUnsupportedSchema: 'skip'` a tool whose schema the validator cannot take is left out.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../errors.js';
import { assertToolName, quoteName } from '../tools/names.js';
import type { JsonSchema, ToolContext, ToolDef } from '../tools/types.js';
import type { CallTarget } from './call.js';
import type { McpCommonConfig } from './config-types.js';
import { assertSchemaBounds } from './schema-bounds.js';
import { admitTool } from '../schema/admitted-tools.js';

/** Runs one `tools/call`; supplied by the source that owns the connection. */
export type CallTool = (target: CallTarget, input: unknown, ctx: ToolContext) => Promise<unknown>;

export function importTools(
  wireTools: readonly Tool[],
  config: McpCommonConfig,
  sourceId: string,
  callTool: CallTool,
): ToolDef[] {
  const allow = config.allow === undefined ? undefined : new Set(config.allow);
  const deny = new Set(config.deny ?? []);
  const seen = new Set<string>();
  const defs: ToolDef[] = [];
  for (const wire of wireTools) {
    const original = wire.name;
    if (deny.has(original) || (allow !== undefined && !allow.has(original))) continue;
    const name = config.prefix === undefined ? original : `${config.prefix}_${original}`;
    assertToolName(name, sourceId);
    if (seen.has(name)) {
      throw new ConfigError(
        'tool.duplicate_name',
        `${sourceId}: the server lists tool ${quoteName(original)} more than once`,
      );
    }
    seen.add(name);
    if (config.onUnsupportedSchema === 'skip') {
      const def = admitted(wire, name, config, sourceId, callTool);
      if (def !== undefined) defs.push(def);
      continue;
    }
    // After the filter: a denied tool's schema costs nothing, however large or deep.
    assertSchemaBounds(wire, sourceId, config.maxSchemaBytes);
    defs.push(toToolDef(wire, name, config, callTool));
  }
  return defs;
}

/**
 * `onUnsupportedSchema: 'skip'`: the tool is admitted now rather than when a toolset is
 * resolved, and one whose schema is outside the validator's subset is left out, named to the
 * host, instead of refusing the whole source. Every other refusal (a schema past
 * maxSchemaBytes, a bad name) still refuses.
 */
function admitted(wire: Tool, name: string, config: McpCommonConfig, sourceId: string, callTool: CallTool): ToolDef | undefined {
  try {
    assertSchemaBounds(wire, sourceId, config.maxSchemaBytes);
    const def = toToolDef(wire, name, config, callTool);
    admitTool(def, `source ${quoteName(sourceId)}`);
    return def;
  } catch (error) {
    if (!(ConfigError.is(error) && error.code === 'schema.unsupported')) throw error;
    config.onToolSkipped?.({ name: wire.name, reason: error.message });
    return undefined;
  }
}

function toToolDef(wire: Tool, name: string, config: McpCommonConfig, callTool: CallTool): ToolDef {
  const original = wire.name;
  const risk = config.risk !== undefined && Object.hasOwn(config.risk, original) ? config.risk[original] : undefined;
  const description = wire.description ?? wire.title ?? '';
  // Shared, not copied or frozen: an in-process server hands over its own objects, which are
  // not ours to freeze, and copying 10,000 schemas per sweep would double its cost. Schemas
  // are admitted when a toolset is resolved (validators compile on first use).
  const parameters = wire.inputSchema as JsonSchema;
  const outputSchema = wire.outputSchema as JsonSchema | undefined;
  const approval = needsApproval(config.approval, original);
  // Made at the tool's first call: most imported tools are never called in a given sweep.
  let target: CallTarget | undefined;
  const execute = (input: unknown, ctx: ToolContext) => callTool((target ??= Object.freeze({ name: original, hasOutputSchema: outputSchema !== undefined })), input, ctx);
  // One literal per shape rather than spreads of optional members: this runs for every tool
  // of every sweep, and V8 builds an object with a spread in it the slow way (a third of
  // tools()'s own time for 10,000 tools).
  const def: ToolDef =
    outputSchema === undefined
      ? risk === undefined
        ? { name, description, parameters, needsApproval: approval, execute }
        : { name, description, parameters, needsApproval: approval, risk, execute }
      : risk === undefined
        ? { name, description, parameters, outputSchema, needsApproval: approval, execute }
        : { name, description, parameters, outputSchema, needsApproval: approval, risk, execute };
  return Object.freeze(def);
}

function needsApproval(approval: McpCommonConfig['approval'], original: string): boolean {
  if (approval === undefined || typeof approval === 'boolean') return approval === true;
  return Object.hasOwn(approval, original) && approval[original] === true;
}
