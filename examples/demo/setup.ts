/**
 * What both processes of `npm run demo` share: the workbench MCP server over stdio (a child
 * process of each), the scripted model, the workflow, the engine options over one file
 * journal, and the printing of an audit trail. A real host would have these in one module
 * too: the process that resumes a run must define the same workflow and tools.
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { defineWorkflow, fileJournal, mcp, type EngineOptions, type JournalEntry, type RunHandle } from '@rulvar/core/node';
import { scripted } from '@rulvar/core/testing';

const serverScript = fileURLToPath(new URL('../servers/workbench-stdio.ts', import.meta.url));

export function notesSource() {
  return mcp({
    transport: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', serverScript],
    prefix: 'notes',
    risk: { add_note: 'write', read_note: 'read', list_notes: 'read', snapshot: 'read', delete_note: 'destructive' },
    approval: { delete_note: true },
  });
}

/** What a model would do, turn by turn; turn n answers the agent's n-th request, in any process. */
export function demoModel() {
  return scripted([
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
}

export const shopping = defineWorkflow({ name: 'shopping' }, async (ctx, _args: null) => {
  const agent = await ctx.agent('Save my grocery list: eggs, rice.', { tools: [notes()] });
  return { text: agent.text, turns: agent.turns };
});

let source: ReturnType<typeof notesSource> | undefined;
/** This process's one source, created on first use and closed by `closeNotes`. */
export function notes(): ReturnType<typeof notesSource> {
  source ??= notesSource();
  return source;
}

export async function closeNotes(): Promise<void> {
  await source?.close();
}

export function engineOptions(dir: string, model: ReturnType<typeof demoModel>): EngineOptions {
  return { adapters: [model], journal: fileJournal({ dir }), defaults: { model: 'scripted:demo', permissions: { preset: 'strict' } } };
}

/** Prints each call of `handle` as it settles, prefixed by the process; counts the calls that ran. */
export function watch<T>(who: string, handle: RunHandle<T>, ran: { count: number }): RunHandle<T> {
  handle.on('tool:end', ({ toolName, audit, result, resolution }) => {
    // Reached `execute`: allowed by the chain, or asked and then allowed.
    if ((resolution?.decision ?? audit.verdict) === 'allow') ran.count += 1;
    const verdict = resolution === undefined ? `${audit.verdict} by ${audit.layer}` : `${resolution.decision} by ${resolution.by} (${audit.layer})`;
    console.log(`  ${who}: ${toolName.padEnd(16)} ${verdict.padEnd(30)} -> ${JSON.stringify(result.output).slice(0, 60)}`);
  });
  handle.on('approval:pending', ({ toolName }) => console.log(`  ${who}: ${toolName.padEnd(16)} ${'ask: the run suspends'.padEnd(30)}`));
  return handle;
}

/** The journal's own record of every call: what the chain said, how an ask was resolved, the result. */
export function auditRows(entries: readonly JournalEntry[]): string[][] {
  const resolutions = new Map(entries.flatMap((e) => (e.type === 'resolution' ? [[e.key, e] as const] : [])));
  const asks = new Map(entries.flatMap((e) => (e.type === 'approval' ? [[`${e.agent}/${e.turn}/${e.index}`, e] as const] : [])));
  return entries.flatMap((e) => {
    if (e.type !== 'tool') return [];
    const ask = asks.get(`${e.agent}/${e.turn}/${e.index}`);
    const resolution = ask === undefined ? undefined : resolutions.get(ask.key);
    const decided = resolution === undefined ? `${e.audit.verdict} (${e.audit.layer})` : `ask (${e.audit.layer}) -> ${resolution.decision} by ${resolution.by}`;
    return [[String(e.turn), e.result.toolName, decided, JSON.stringify(e.result.output).slice(0, 40)]];
  });
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}
