/**
 * `npm run demo`: a real end-to-end run with no API key. It spawns this repo's workbench MCP
 * server as a child process over stdio, imports its tools with a prefix, host-supplied risk
 * labels and an approval flag, and runs an agent on them under the `strict` preset with the
 * scripted model. The agent's write asks for approval, so the run suspends; a second engine
 * over the same journal approves it and resumes the run. The audit trail and the model-call
 * count show that nothing was paid twice. Closing the source ends the child process.
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { createEngine, defineWorkflow, memoryJournal, mcp, type RunHandle } from '@rulvar/core/node';
import { scripted } from '@rulvar/core/testing';

const serverScript = fileURLToPath(new URL('./servers/workbench-stdio.ts', import.meta.url));

const notes = mcp({
  transport: 'stdio',
  command: process.execPath,
  args: ['--import', 'tsx', serverScript],
  prefix: 'notes',
  risk: { add_note: 'write', read_note: 'read', list_notes: 'read', snapshot: 'read', delete_note: 'destructive' },
  approval: { delete_note: true },
});

// What a model would do, turn by turn; turn n answers the agent's n-th request.
const model = scripted([
  {
    text: 'Checking the notes, then saving the list.',
    toolCalls: [
      { name: 'notes_list_notes', input: {} },
      { name: 'notes_add_note', input: { title: 'groceries', body: 'eggs, rice' } },
    ],
  },
  { text: 'Reading it back.', toolCalls: [{ name: 'notes_read_note', input: { title: 'groceries' } }] },
  'Saved the groceries note.',
]);

const shopping = defineWorkflow({ name: 'shopping' }, async (ctx) => {
  const agent = await ctx.agent('Save my grocery list: eggs, rice.', { tools: [notes] });
  return { text: agent.text, turns: agent.turns };
});

// One journal, two engines: the second stands for another process, or a later request.
const journal = memoryJournal();
const options = { adapters: [model], journal, defaults: { model: 'scripted:demo', permissions: { preset: 'strict' as const } } };
const trail: string[] = [];
const executed = new Map<string, number>();

try {
  const tools = await notes.tools();
  console.log(`Imported ${tools.length} tools from ${notes.id}:\n`);
  printTable(['name', 'risk', 'needsApproval'], tools.map((t) => [t.name, t.risk ?? '(undeclared)', String(t.needsApproval)]));

  const first = watch('engine 1', createEngine(options).run(shopping, {}));
  const suspended = await first.result;
  if (suspended.status !== 'suspended') throw new Error(`expected the run to suspend, got ${suspended.status}`);
  const [approval] = suspended.approvals;
  if (approval === undefined) throw new Error('the suspended run lists no approval');
  console.log(`\nRun ${first.runId} suspended: ${approval.toolName} ${JSON.stringify(approval.input)} waits (${approval.audit.reason}).`);
  console.log(`Model calls so far: ${model.calls}`);

  const second = createEngine(options);
  const approved = await second.resolveExternal(first.runId, approval.key, 'allow', { by: 'operator', reason: 'the list is fine' });
  console.log(`An operator approves it through engine 2: ${approved}`);
  const resumed = await watch('engine 2', second.resume(first.runId, shopping)).result;
  if (resumed.status !== 'completed') throw new Error(`expected the run to complete, got ${resumed.status}`);

  console.log('\nAudit trail:');
  for (const line of trail) console.log(`  ${line}`);
  console.log(`\nResult: ${JSON.stringify(resumed.value)}`);
  const twice = model.calls === resumed.value.turns ? 'none requested twice' : 'SOME REQUESTED TWICE';
  console.log(`Model calls: ${model.calls} for ${resumed.value.turns} turns (${twice}); notes_add_note ran ${executed.get('notes_add_note') ?? 0} time(s).`);
} finally {
  await notes.close();
}

function watch<T>(engine: string, handle: RunHandle<T>): RunHandle<T> {
  handle.on('tool:end', ({ toolName, audit, result, resolution }) => {
    const output = JSON.stringify(result.output).slice(0, 60);
    executed.set(toolName, (executed.get(toolName) ?? 0) + 1);
    const verdict = resolution === undefined ? `${audit.verdict} by ${audit.layer}` : `${resolution.decision} by ${resolution.by} (${audit.layer})`;
    trail.push(`${engine}: ${toolName.padEnd(16)} ${verdict.padEnd(30)} -> ${output}`);
  });
  handle.on('approval:pending', ({ toolName }) => trail.push(`${engine}: ${toolName.padEnd(16)} ${'ask: the run suspends'.padEnd(30)}`));
  return handle;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}
