/**
 * The permission chain on imported tools: a preset over host risk labels, a deny rule with a
 * reason the model reads, a hook that rewrites input, canUseTool as the last word before the
 * default, and evaluatePermission to dry-run the policy without executing anything.
 */
import { dispatchTool, evaluatePermission, mcp, resolveToolset, type PermissionConfig } from '@rulvar/core';
import { createWorkbenchServer } from './servers/workbench.js';

const notes = mcp({
  transport: 'inprocess',
  server: createWorkbenchServer(),
  prefix: 'notes',
  risk: { read_note: 'read', list_notes: 'read', add_note: 'write', delete_note: 'destructive' },
});

const policy: PermissionConfig = {
  preset: 'strict', // write and undeclared ask, destructive is denied
  deny: [{ tool: 'notes_sleep', description: 'long waits are not allowed in this demo' }],
  hooks: [
    // Trim titles before any other layer sees them.
    ({ input }) => {
      const title = (input as { title?: unknown }).title;
      return typeof title === 'string' ? { modifiedInput: { ...(input as object), title: title.trim() } } : undefined;
    },
  ],
  // The host's last word before the default: here, reads need a title.
  canUseTool: (toolName, input) =>
    toolName === 'notes_read_note' && !(input as { title?: string }).title ? { verdict: 'deny', reason: 'read_note needs a title' } : undefined,
};

try {
  const toolset = await resolveToolset([notes]);
  console.log('dry run:');
  for (const tool of toolset.tools) {
    const audit = await evaluatePermission(policy, { callId: 'dry', toolName: tool.name, input: {}, needsApproval: tool.needsApproval, ...(tool.risk ? { risk: tool.risk } : {}) });
    console.log(`  ${tool.name.padEnd(18)} ${audit.verdict.padEnd(5)} by ${audit.layer}${audit.preset ? ` (${audit.preset})` : ''}`);
  }
  const read = await dispatchTool(toolset, { id: '1', name: 'notes_read_note', input: { title: '  missing  ' } }, { permissions: policy });
  console.log('\nnotes_read_note ->', read.status === 'done' ? read.result : read.status, '| input ran with:', JSON.stringify(read.input));
  const removed = await dispatchTool(toolset, { id: '2', name: 'notes_delete_note', input: { title: 'x' } }, { permissions: policy });
  console.log('notes_delete_note ->', removed.status === 'done' ? removed.result.output : removed.status);
} finally {
  await notes.close();
}
