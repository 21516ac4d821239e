/**
 * The page's wiring: one in-page MCP server imported through `mcp()`, resolved once into the
 * toolset the tables show, and the same source handed to the agent, which resolves it again at
 * spawn and freezes its own copy (a server that changed its tools in between would re-key it).
 */
import { resolveToolset } from '@rulvar/core';
import { notesSource } from './agent.js';
import { mountPolicyView } from './policy-view.js';
import { mountRunPanel } from './run-panel.js';
import { renderToolset } from './toolset-table.js';

export async function start(): Promise<void> {
  const source = notesSource();
  const toolset = await resolveToolset([source]);
  renderToolset(toolset);
  mountRunPanel(source, mountPolicyView(toolset));
}
