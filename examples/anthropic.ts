/**
 * An agent on the real Anthropic API: anthropic() as the engine's model, the workbench MCP
 * server as its tools. Needs ANTHROPIC_API_KEY (ANTHROPIC_MODEL picks the model); without
 * a key it says so and exits 0.
 */
import { createEngine, defineWorkflow, mcp } from '@rulvar/core';
import { anthropic } from '@rulvar/core/anthropic';
import { createWorkbenchServer } from './servers/workbench.js';

if (!process.env['ANTHROPIC_API_KEY']) {
  console.log('skipped: set ANTHROPIC_API_KEY to run this example against the Anthropic API');
  process.exit(0);
}

const notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { add_note: 'write' } });
const engine = createEngine({
  adapters: [anthropic({ maxTokens: 1024 })],
  defaults: { model: `anthropic:${process.env['ANTHROPIC_MODEL'] ?? 'claude-haiku-4-5'}`, permissions: { preset: 'standard' } },
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
