/**
 * An agent on any AI SDK provider package: aiSdk() over @ai-sdk/openai's chat model as the
 * engine's model, the workbench MCP server as its tools. Another provider is one line
 * (`aiSdk(google('gemini-2.5-flash'))` from @ai-sdk/google, say). Needs OPENAI_API_KEY
 * (OPENAI_BASE_URL and OPENAI_MODEL as the openai example reads them); without a key it says
 * so and exits 0.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createEngine, defineWorkflow, mcp } from '@rulvar/core';
import { aiSdk } from '@rulvar/core/ai-sdk';
import { createWorkbenchServer } from './servers/workbench.js';

const apiKey = process.env['OPENAI_API_KEY'];
if (!apiKey) {
  console.log('skipped: set OPENAI_API_KEY to run this example against the OpenAI API through the AI SDK');
  process.exit(0);
}

const openai = createOpenAI({ apiKey, baseURL: process.env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1' });
const modelId = process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini';
// `secrets`: what the adapter scrubs from errors and answers, since the provider holds the key, not rulvar.
const model = aiSdk(openai.chat(modelId), { secrets: [apiKey] });

const notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { add_note: 'write', list_notes: 'read' } });
const engine = createEngine({ adapters: [model], defaults: { model: `ai-sdk:${modelId}`, permissions: { preset: 'standard' } } });

const groceries = defineWorkflow({ name: 'groceries' }, async (ctx) => {
  const agent = await ctx.agent('Save a note titled "groceries" with the body "eggs, rice", then list the notes and tell me what is saved.', { tools: [notes] });
  return { text: agent.text, turns: agent.turns };
});

const handle = engine.run(groceries, undefined);
handle.on('tool:end', (event) => console.log(`tool ${event.toolName} ${JSON.stringify(event.input)} -> ${JSON.stringify(event.result.output)}`));
const outcome = await handle.result;
if (outcome.status === 'completed') console.log(`answer (${outcome.value.turns} turns): ${outcome.value.text}`);
else console.log(outcome.status, outcome.status === 'failed' ? `${outcome.error.code}: ${outcome.error.message}` : '');
await notes.close();
if (outcome.status !== 'completed') process.exitCode = 1;
