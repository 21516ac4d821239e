/**
 * An agent on the OpenAI Chat Completions API (or any server that speaks it, through
 * OPENAI_BASE_URL): openaiCompatible() as the engine's model, the workbench MCP server as its
 * tools. Needs OPENAI_API_KEY (OPENAI_MODEL picks the model); without a key it says so and
 * exits 0.
 */
import { createEngine, defineWorkflow, mcp } from '@rulvar/core';
import { openaiCompatible } from '@rulvar/core/openai';
import { createWorkbenchServer } from './servers/workbench.js';

if (!process.env['OPENAI_API_KEY']) {
  console.log('skipped: set OPENAI_API_KEY to run this example against the OpenAI API');
  process.exit(0);
}

const notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { add_note: 'write' } });
const engine = createEngine({
  // The key is passed on purpose: the adapter reads OPENAI_API_KEY itself only for OpenAI's own host.
  adapters: [openaiCompatible({ baseURL: process.env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1', apiKey: process.env['OPENAI_API_KEY'] })],
  defaults: { model: `openai:${process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini'}`, permissions: { preset: 'standard' } },
});

const groceries = defineWorkflow({ name: 'groceries' }, async (ctx) => {
  const agent = await ctx.agent('Save a note titled "groceries" with the body "eggs, rice", then list the notes and tell me what is saved.', { tools: [notes] });
  return { text: agent.text, turns: agent.turns };
});

const handle = engine.run(groceries, undefined);
handle.on('tool:end', (event) => console.log(`tool ${event.toolName} ${JSON.stringify(event.input)} -> ${JSON.stringify(event.result.output)}`));
handle.on('turn:end', (event) => console.log('turn usage:', JSON.stringify(event.usage ?? null)));
const outcome = await handle.result;
if (outcome.status === 'completed') console.log(`answer (${outcome.value.turns} turns): ${outcome.value.text}`);
else console.log(outcome.status, outcome.status === 'failed' ? `${outcome.error.code}: ${outcome.error.message}` : '');
await notes.close();
if (outcome.status !== 'completed') process.exitCode = 1;
