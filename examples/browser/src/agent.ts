/**
 * What the page's agent is made of: the workbench MCP server, running in this page and
 * imported through `mcp()` with the host's own risk labels; a scripted model; and the
 * workflow the engine runs. A real page would swap the model for a provider adapter and
 * the in-page server for a streamable-http one; nothing else changes.
 */
import { defineWorkflow, mcp, type McpToolSource, type ModelRequest, type ToolResult, type Workflow } from '@rulvar/core';
import { scripted, type ScriptedModel } from '@rulvar/core/testing';
import { createWorkbenchServer } from '../../servers/workbench.js';

export function notesSource(): McpToolSource {
  return mcp({
    transport: 'inprocess',
    server: createWorkbenchServer(),
    prefix: 'notes',
    // Risk is the host's judgement, never the server's: `sleep` stays undeclared on purpose.
    risk: { read_note: 'read', list_notes: 'read', snapshot: 'read', add_note: 'write', delete_note: 'destructive' },
    // Asked even under `open`: the terminal default of a needsApproval tool is ask.
    approval: { delete_note: true },
  });
}

/** The result the model saw last, if its latest message holds tool results. */
function lastResult(request: ModelRequest): ToolResult | undefined {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? last.results.at(-1) : undefined;
}

/**
 * A function of the request, not a list: the answer depends on whether the write went
 * through. Still deterministic, so a resumed run gets the answers the first attempt got.
 */
export function notesModel(): ScriptedModel {
  // Streamed in pieces, slowly enough to watch, as a provider streams.
  const stream = { chunkChars: 4, delayMs: 20 };
  return scripted((request) => {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (turn === 0) return { text: 'Checking what is saved.', toolCalls: [{ name: 'notes_list_notes', input: {} }] };
    if (turn === 1) {
      return { text: 'Saving the list.', toolCalls: [{ name: 'notes_add_note', input: { title: 'groceries', body: 'eggs, rice' } }] };
    }
    const saved = lastResult(request);
    return saved?.isError === false ? 'Saved your grocery list as "groceries".' : `I could not save the list: ${String(saved?.output)}`;
  }, { stream });
}

/** The workflow's name is its identity in the journal: resume finds the run by it. */
export function groceriesWorkflow(source: McpToolSource): Workflow<null, string> {
  return defineWorkflow({ name: 'save-groceries' }, async (ctx, _args: null) => {
    const agent = await ctx.agent('Save my grocery list: eggs, rice.', { tools: [source] });
    return agent.text;
  });
}
