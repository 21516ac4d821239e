/**
 * A host that hands one long-lived signal to every call (a run's signal, say) must not find
 * a listener per call left on it: Node counts them, so this test can.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { dispatchTool, mcp, resolveToolset } from '../../src/node/index.js';

describe('signals', () => {
  it('leaves no abort listeners on a shared signal after 50 calls', async () => {
    await using source = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
    const toolset = await resolveToolset([source]);
    const run = new AbortController();
    for (let i = 0; i < 50; i += 1) {
      const outcome = await dispatchTool(toolset, { id: `c${i}`, name: 'list_notes', input: {} }, { signal: run.signal });
      expect(outcome.status).toBe('done');
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});
