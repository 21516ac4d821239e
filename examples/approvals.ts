/** An agent whose write waits for a human: suspend, resolve, resume (docs/engine.md quotes it). */
import { createEngine, defineWorkflow, mcp, memoryJournal } from '@rulvar/core';
import { scripted } from '@rulvar/core/testing';
import { createWorkbenchServer } from './servers/workbench.js';

const notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { add_note: 'write' } });
const model = scripted([{ toolCalls: [{ name: 'notes_add_note', input: { title: 'todo', body: 'call Ann' } }] }, 'Saved.']);
const journal = memoryJournal(); // fileJournal({ dir }) on Node, durableObjectJournal(storage) on Workers
const options = { adapters: [model], journal, defaults: { model: 'scripted:any', permissions: { preset: 'strict' as const } } };

const remember = defineWorkflow({ name: 'remember' }, async (ctx, note: string) => {
  const agent = await ctx.agent(`Save this note: ${note}`, { tools: [notes] });
  return agent.text;
});

const first = await createEngine(options).run(remember, 'call Ann').result;
const ask = first.status === 'suspended' ? first.approvals[0] : undefined;
if (ask !== undefined) {
  console.log('suspended:', ask.toolName, ask.audit.reason);
  // Later, anywhere: another process, a webhook, an operator's button.
  const engine = createEngine(options);
  await engine.resolveExternal(ask.runId, ask.key, 'allow');
  const done = await engine.resume(ask.runId, remember).result;
  console.log(done.status, done.status === 'completed' ? done.value : '', `model calls: ${model.calls}`);
}
await notes.close();
