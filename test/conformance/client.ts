/**
 * The client the MCP conformance suite drives (scripts/conformance.sh): `mcp()` as a host
 * configures it, nothing else. The suite starts a scenario server, runs this with the
 * server's URL as its last argument and the scenario in MCP_CONFORMANCE_SCENARIO (its
 * revision in MCP_CONFORMANCE_PROTOCOL_VERSION, its inputs in MCP_CONFORMANCE_CONTEXT), and
 * checks what reached the server. The configuration used is the documented one:
 *   - `protocol`: the revision the scenario runs at (2026-07-28, else 2025-11-25);
 *   - `onUnsupportedSchema: 'skip'`, so a tool the validator cannot take is left out alone;
 *   - for auth/* scenarios, `http.authProvider` (oauth-provider.ts), per docs/oauth.md.
 * Tools are listed, the toolset resolved, and then called as the scenario asks: with the
 * arguments its context names, else every tool. A call goes through the tool's `execute`,
 * the path every imported tool takes after validation, because some scenarios send
 * arguments on purpose that a model's would not pass (a null where a boolean is declared).
 */
import process from 'node:process';
import { mcp, resolveToolset, type McpConfig, type ToolDef } from '../../src/node/index.js';
import { conformanceAuth } from './oauth-provider.js';

const url = process.argv.at(-1) ?? '';
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
const revision = process.env['MCP_CONFORMANCE_PROTOCOL_VERSION'];
const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as {
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
};

const config: McpConfig = {
  transport: 'streamable-http',
  url,
  protocol: revision === '2026-07-28' ? '2026-07-28' : '2025-11-25',
  onUnsupportedSchema: 'skip',
  onToolSkipped: ({ name, reason }) => console.error(`left out ${name}: ${reason}`),
  ...(scenario.startsWith('auth/') ? { http: { authProvider: await conformanceAuth(scenario, url) } } : {}),
};

const source = mcp(config);
try {
  const { tools } = await resolveToolset([source]);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const [name, args] of plannedCalls(tools)) {
    const tool = byName.get(name);
    if (tool === undefined) continue;
    const result = await tool.execute(args, { callId: name, toolName: name, signal: new AbortController().signal });
    console.error(`${name}: ${JSON.stringify(result).slice(0, 200)}`);
  }
} finally {
  await source.close();
}

function plannedCalls(tools: readonly ToolDef[]): [string, Record<string, unknown>][] {
  if (context.toolCalls !== undefined) return context.toolCalls.map((c) => [c.name, c.arguments]);
  switch (scenario) {
    case 'json-schema-ref-no-deref':
      return [];
    case 'json-schema-2020-12-preservation': {
      const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      return [['json_schema_echo', { schema: focal?.parameters }]];
    }
    case 'initialize':
    case 'tools_call':
      return tools.slice(0, 1).map((tool) => [tool.name, { a: 2, b: 3 }]);
    default:
      return tools.map((tool) => [tool.name, {}]);
  }
}
