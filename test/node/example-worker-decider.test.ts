/**
 * The engine journals who decided an approval when the host says (`resolveExternal(…, {
 * decider })`): what examples/worker records for its API token and its approval links. Run
 * against src/ (memoryJournal, a native tool that asks), for both ways a resolution is made:
 * on a settled run (another request, as the Worker does) and on a live handle.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, defineWorkflow, memoryJournal, tool, type JournalEntry } from '../../src/node/index.js';
import { scripted } from '../../src/testing/index.js';

function setup() {
  const journal = memoryJournal();
  const save = tool({ name: 'save', description: 'saves', parameters: { type: 'object' }, needsApproval: true, execute: async () => 'saved' });
  const model = scripted(() => ({ toolCalls: [{ name: 'save', input: {} }] }));
  const workflow = defineWorkflow({ name: 'decide' }, async (ctx) => (await ctx.agent('save it', { tools: [save], maxTurns: 2 })).text);
  const engine = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:m' } });
  const resolutions = async (runId: string) => (await journal.load(runId)).filter((e): e is Extract<JournalEntry, { type: 'resolution' }> => e.type === 'resolution');
  return { engine, workflow, resolutions };
}

describe('resolutions journal their decider', () => {
  it('on a settled run: the decider as given, cut at 200 characters; none when none is given', async () => {
    for (const [decider, journaled] of [
      ['link:0123abcd', 'link:0123abcd'],
      ['x'.repeat(300), expect.stringMatching(/^x{1,200}… \(cut: /)],
      [undefined, undefined],
    ] as const) {
      const { engine, workflow, resolutions } = setup();
      const first = await engine.run(workflow, null).result;
      if (first.status !== 'suspended') throw new Error(`expected a suspended run, got ${first.status}`);
      const [ask] = first.approvals;
      const options = decider === undefined ? { by: 'operator' as const } : { by: 'operator' as const, decider };
      expect(await engine.resolveExternal(ask?.runId ?? '', ask?.key ?? '', 'allow', options)).toBe(true);
      const [resolution] = await resolutions(ask?.runId ?? '');
      expect(resolution).toMatchObject({ decision: 'allow', by: 'operator' });
      if (journaled === undefined) expect(resolution).not.toHaveProperty('decider');
      else expect(resolution?.decider).toEqual(journaled);
      if (typeof resolution?.decider === 'string') expect(resolution.decider.length).toBeLessThanOrEqual(200 + 40);
    }
  });

  it('on a live handle: the decider is journaled with the resolution it made', async () => {
    const { engine, workflow, resolutions } = setup();
    const handle = engine.run(workflow, null);
    const asked = new Promise<string>((resolve) => handle.on('approval:pending', (event) => resolve(event.key)));
    expect(await handle.resolveExternal(await asked, 'deny', { decider: 'token:feedface' })).toBe(true);
    await handle.result;
    expect(await resolutions(handle.runId)).toMatchObject([{ decision: 'deny', by: 'external', decider: 'token:feedface' }]);
  });
});
