/**
 * What both processes of `npm run demo` share: the workbench MCP server over stdio (a child
 * process of each), the scripted model, the workflow, the engine options over one file
 * journal, and the printing of an audit trail. A real host would have these in one module
 * too: the process that resumes a run must define the same workflow and tools.
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import {
  defineWorkflow,
  evaluatePermission,
  fileJournal,
  mcp,
  type EngineOptions,
  type JournalEntry,
  type ModelRequest,
  type PermissionPreset,
  type RunHandle,
  type ToolDef,
  type ToolResult,
} from '@rulvar/core/node';
import { scripted, type ScriptedModel } from '@rulvar/core/testing';

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

/** The result the model got for `toolName` in the tool message that ends its request. */
function resultOf(request: ModelRequest, toolName: string): ToolResult | undefined {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? last.results.find((result) => result.toolName === toolName) : undefined;
}

/**
 * What a model would do, turn by turn: a function of the request, so the answer follows what
 * the tools returned (a denied write is reported as not saved). Deterministic, so the process
 * that resumes the run gets the answers the first one would have got.
 */
export function demoModel(): ScriptedModel {
  // Streamed in pieces, as a provider streams: watch() prints the text as it comes.
  const stream = { chunkChars: 8, delayMs: 15 };
  return scripted((request) => {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (turn === 0) {
      return {
        text: 'Checking the notes, then saving the list.',
        toolCalls: [
          { name: 'notes_list_notes', input: {} },
          { name: 'notes_add_note', input: { title: 'groceries', body: 'eggs, rice' } },
        ],
      };
    }
    if (turn === 1) {
      const saved = resultOf(request, 'notes_add_note');
      if (saved?.isError !== false) return `I did not save the groceries note: ${String(saved?.output)}`;
      return { text: 'Reading it back.', toolCalls: [{ name: 'notes_read_note', input: { title: 'groceries' } }] };
    }
    return `Saved the groceries note; it reads ${JSON.stringify(resultOf(request, 'notes_read_note')?.output)}.`;
  }, { stream });
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

/** The demo's policy: the strict preset over the risk labels given in notesSource(). */
export const PRESET: PermissionPreset = 'strict';

export function engineOptions(dir: string, model: ScriptedModel): EngineOptions {
  return { adapters: [model], journal: fileJournal({ dir }), defaults: { model: 'scripted:demo', permissions: { preset: PRESET } } };
}

/**
 * What the chain will decide for a call of `tool` under PRESET, run dry (no tool runs). The
 * input is `{}`, exact here: the preset judges the name, the risk label and needsApproval.
 */
export async function verdictOf(tool: ToolDef): Promise<string> {
  const call = { callId: 'dry-run', toolName: tool.name, input: {}, needsApproval: tool.needsApproval, ...(tool.risk === undefined ? {} : { risk: tool.risk }) };
  const audit = await evaluatePermission({ preset: PRESET }, call);
  return `${audit.verdict} by ${audit.layer}`;
}

/** Prints each call of `handle` as it settles, prefixed by the process; counts the calls that ran. */
export function watch<T>(who: string, handle: RunHandle<T>, ran: { count: number }): RunHandle<T> {
  // The model's text as it streams in, on one line per turn; a retried attempt starts its line again.
  let streaming = false;
  handle.on('turn:delta', ({ attempt, delta }) => {
    if (delta.type !== 'text' || delta.text === '') return;
    if (!streaming || attempt > 0) process.stdout.write(`${streaming ? '\n' : ''}  ${who}: model> `);
    streaming = true;
    process.stdout.write(delta.text);
  });
  handle.on('turn:end', () => {
    if (streaming) process.stdout.write('\n');
    streaming = false;
  });
  handle.on('tool:progress', ({ toolName, progress, total, message }) => {
    console.log(`  ${who}: ${toolName.padEnd(16)} progress ${progress}/${total ?? '?'}${message === undefined ? '' : ` (${message})`}`);
  });
  handle.on('tool:end', ({ toolName, audit, result, resolution }) => {
    // Reached `execute`: allowed by the chain, or asked and then allowed.
    if ((resolution?.decision ?? audit.verdict) === 'allow') ran.count += 1;
    const verdict = resolution === undefined ? `${audit.verdict} by ${audit.layer}` : `${resolution.decision} by ${resolution.by} (${audit.layer})`;
    console.log(`  ${who}: ${toolName.padEnd(16)} ${verdict.padEnd(30)} -> ${JSON.stringify(result.output).slice(0, 60)}`);
  });
  handle.on('approval:pending', ({ toolName }) => console.log(`  ${who}: ${toolName.padEnd(16)} ${'ask: the run suspends'.padEnd(30)}`));
  return handle;
}

/**
 * The journal's own record of every call: the turn (counted from 1 for people, as the browser
 * demo counts; the journal's `turn` field counts from 0), what the chain said, how an ask was
 * resolved, the result.
 */
export function auditRows(entries: readonly JournalEntry[]): string[][] {
  const resolutions = new Map(entries.flatMap((e) => (e.type === 'resolution' ? [[e.key, e] as const] : [])));
  const asks = new Map(entries.flatMap((e) => (e.type === 'approval' ? [[`${e.agent}/${e.turn}/${e.index}`, e] as const] : [])));
  return entries.flatMap((e) => {
    if (e.type !== 'tool') return [];
    const ask = asks.get(`${e.agent}/${e.turn}/${e.index}`);
    const resolution = ask === undefined ? undefined : resolutions.get(ask.key);
    const decided = resolution === undefined ? `${e.audit.verdict} (${e.audit.layer})` : `ask (${e.audit.layer}) -> ${resolution.decision} by ${resolution.by}`;
    return [[String(e.turn + 1), e.result.toolName, decided, JSON.stringify(e.result.output).slice(0, 40)]];
  });
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}
