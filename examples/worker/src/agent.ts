/**
 * What a run executes: one workflow (an agent doing the task), the tools it gets (a remote
 * MCP server over streamable-http, the embedded notebook in-process) and the engine that runs
 * it over the run's journal. The workflow is plain data and lives at module scope. Sources
 * hold I/O (a session, a linked transport) and workerd ties I/O to the request that opened
 * it, so each piece of work (start, a resolution, the alarm) opens its own engine and
 * sources and closes them after; what a later request knows of the run is in the journal.
 */
import { createEngine, defineWorkflow, mcp, type Engine, type JournalStore } from '@rulvar/core';
import type { WorkerConfig } from './config.js';
import { chooseModel } from './model.js';
import { NotesServer, type NoteStorage } from './notes-server.js';

const SYSTEM = 'Do the task with the tools you have. Save what you find as a note, then say what you did.';

export const taskWorkflow = defineWorkflow({ name: 'task' }, async (ctx, task: string) => {
  const agent = await ctx.agent(task, { tools: ['worker'], system: SYSTEM });
  return agent.text;
});

export interface RunEngine {
  readonly engine: Engine;
  close(): Promise<void>;
}

/** `config` was checked by config.ts: nothing here can be misconfigured. */
export function openEngine(config: WorkerConfig, journal: JournalStore, notes: NoteStorage): RunEngine {
  const { adapters, model } = chooseModel(config.model);
  const permissions = { approvalDeadlineMs: config.approvalDeadlineMs };
  const { mcpToken } = config;
  const remote = mcp({
    transport: 'streamable-http',
    url: config.mcpUrl,
    prefix: 'remote',
    // Read at every wire request, never stored: the token is only ever in this header. The
    // library redacts header values from its errors, and nothing of a request is journaled.
    http: { headers: () => (mcpToken === undefined ? {} : { authorization: `Bearer ${mcpToken}` }) },
    // A server on the network is not ours: bound what its answers may cost a request.
    requireBounds: true,
    maxTools: 200,
    maxPages: 10,
    maxSchemaBytes: 64 * 1024,
    timeouts: { connectMs: 5_000, discoveryMs: 10_000, callMs: 20_000 },
  });
  // Remote tools run without asking; add `approval: true` above to put a human in front of
  // them too. The notebook's write asks: its risk label is the host's, not the server's.
  const local = mcp({
    transport: 'inprocess',
    server: new NotesServer(notes),
    prefix: 'notes',
    risk: { save_note: 'write', read_note: 'read' },
    approval: { save_note: true },
  });
  const engine = createEngine({ adapters, journal, defaults: { model, permissions, toolsets: { worker: [remote, local] } } });
  return {
    engine,
    close: async () => {
      await Promise.all([remote.close(), local.close()]);
    },
  };
}
