/**
 * Toolset identity: a native tool and an imported server in one frozen toolset, its
 * toolsetHash and authorityHash, and an attestation that refuses the toolset once the host
 * loosens a risk label (policy drift is visible even when no contract changed).
 */
import { attestToolset, checkToolsetAttestation, mcp, resolveToolset, tool, RulvarError } from '@rulvar/core';
import { createWorkbenchServer } from './servers/workbench.js';

const clock = tool({
  name: 'clock',
  description: 'The current time as an ISO string.',
  parameters: { type: 'object', properties: {} },
  risk: 'read',
  execute: () => new Date().toISOString(),
});

const source = (deleteRisk: 'destructive' | 'write') =>
  mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'notes', risk: { delete_note: deleteRisk } });

const strictNotes = source('destructive');
const looserNotes = source('write');
try {
  const pinned = await resolveToolset([clock, strictNotes]);
  console.log(`${pinned.tools.length} tools\n  toolsetHash   ${pinned.toolsetHash}\n  authorityHash ${pinned.authorityHash}`);
  const attestation = await attestToolset(pinned);

  const later = await resolveToolset([clock, looserNotes]);
  console.log(`same contracts: ${later.toolsetHash === pinned.toolsetHash}, same authority: ${later.authorityHash === pinned.authorityHash}`);
  try {
    await checkToolsetAttestation(later, attestation);
  } catch (error) {
    if (!RulvarError.is(error)) throw error;
    console.log(`refused: ${error.code}: ${error.message}`);
  }
} finally {
  await Promise.all([strictNotes.close(), looserNotes.close()]);
}
