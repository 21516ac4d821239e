/**
 * `npm run demo`: a real end-to-end import with no API key. It spawns this repo's workbench
 * MCP server as a child process over stdio, imports its tools with a prefix, host-supplied
 * risk labels and an approval flag, calls two of them, prints the imported toolset and
 * closes the source (which ends the child, so this script exits on its own).
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { mcp, toToolResult, type ToolDef } from '@rulvar/core/node';

const serverScript = fileURLToPath(new URL('./servers/workbench-stdio.ts', import.meta.url));

const notes = mcp({
  transport: 'stdio',
  command: process.execPath,
  args: ['--import', 'tsx', serverScript],
  prefix: 'notes',
  risk: { add_note: 'write', read_note: 'read', list_notes: 'read', snapshot: 'read', delete_note: 'destructive' },
  approval: { delete_note: true },
});

try {
  const tools = await notes.tools();
  const byName = new Map(tools.map((t) => [t.name, t]));

  console.log(`Imported ${tools.length} tools from ${notes.id}:\n`);
  printTable(['name', 'risk', 'needsApproval'], tools.map((t) => [t.name, t.risk ?? '(undeclared)', String(t.needsApproval)]));

  const added = await call(byName.get('notes_add_note'), { title: 'groceries', body: 'eggs, rice' });
  console.log('\nnotes_add_note ->', JSON.stringify(added.output));
  const card = await call(byName.get('notes_snapshot'), {});
  console.log('notes_snapshot ->', JSON.stringify(card.output).slice(0, 120), '…');
} finally {
  await notes.close();
}

async function call(tool: ToolDef | undefined, input: Record<string, unknown>) {
  if (tool === undefined) throw new Error('the workbench server did not list an expected tool');
  const signal = AbortSignal.timeout(10_000);
  const value = await tool.execute(input, { callId: crypto.randomUUID(), toolName: tool.name, signal });
  return toToolResult('demo', tool.name, { value });
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}
