/** From mcp() to a dispatched, audited call (the README's quick start, verbatim). */
import { dispatchTool, mcp, resolveToolset } from '@rulvar/core';
import { createWorkbenchServer } from './servers/workbench.js';

const notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { add_note: 'write' } });
const toolset = await resolveToolset([notes]);
const call = { id: 'call-1', name: 'notes_add_note', input: { title: 'hello', body: 'world' } };
const outcome = await dispatchTool(toolset, call, { permissions: { preset: 'standard' } });
if (outcome.status === 'done') console.log(outcome.result, outcome.audit);
else console.log('waiting for approval:', outcome.audit.reason);
await notes.close();
