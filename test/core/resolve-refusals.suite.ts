/**
 * What `resolveToolset` refuses, over native tools and a host's own ToolSources (no server
 * needed): entries that are neither a ToolDef nor a ToolSource, sources that fail or list
 * something else, self-including registered toolsets, and the exact duplicate message.
 */
import type { SuiteHarness } from './harness.js';
import { caught, expectConfigError, expectSourceError } from './helpers.js';

export function resolveRefusalsSuite(h: SuiteHarness): void {
  const { tool, resolveToolset } = h.lib;
  const native = (name: string) => tool({ name, description: '', parameters: { type: 'object' }, execute: () => name });
  const ENTRY = 'a tools entry must be a ToolDef, a ToolSource or a registered toolset name';

  h.describe('resolveToolset: refusals', () => {
    h.it('refuses an entry that is neither a ToolDef nor a ToolSource', async () => {
      const execute = () => 1;
      const entries: unknown[] = [
        null,
        42,
        { id: 'src' },
        { id: 'src', tools: [] },
        { tools: async () => [] },
        { name: 'half' },
        { execute },
        { name: 7, execute },
        // Functions have a string `name` of their own; a function is still no ToolDef.
        Object.assign(function fake() {}, { execute }),
        Object.assign(() => 1, { id: 'fn', tools: async () => [] }),
      ];
      for (const entry of entries) {
        h.expect(await expectConfigError(h, () => resolveToolset([entry as never]), 'config.invalid_value')).toBe(ENTRY);
      }
    });

    h.it("refuses what a host's source lists that is not a ToolDef, naming the source", async () => {
      for (const listed of [null, { name: 'x' }, { execute: () => 1 }]) {
        const source = { id: 'mine', tools: async () => [listed] };
        const message = await expectConfigError(h, () => resolveToolset([source as never]), 'config.invalid_value');
        h.expect(message).toBe('source "mine" produced something that is not a ToolDef');
      }
    });

    h.it('a source that lists something other than an array is unavailable, with the cause kept', async () => {
      const odd = { id: 'odd', tools: async () => ({ length: 0 }) };
      const message = await expectSourceError(h, () => resolveToolset([odd as never]), 'source.unavailable');
      h.expect(message).toBe('source "odd" failed: tools() did not return an array');
      const thrown = new Error('boom');
      const broken = { id: 'broken', tools: async () => { throw thrown; } };
      const error = await caught(() => resolveToolset([broken]));
      h.expect((error as Error).message).toBe('source "broken" failed: boom');
      h.expect((error as Error).cause).toBe(thrown);
    });

    h.it('a typed error from a source passes through as it is', async () => {
      const typed = new h.lib.ConfigError('config.invalid_value', 'the host said no');
      const error = await caught(() => resolveToolset([{ id: 'typed', tools: async () => { throw typed; } }]));
      h.expect(error).toBe(typed);
    });

    h.it('refuses a registered toolset that includes itself, showing the chain', async () => {
      const toolsets = { a: [native('one'), 'b'], b: ['c'], c: ['a'] };
      const message = await expectConfigError(h, () => resolveToolset(['a'], { toolsets }), 'config.invalid_value');
      h.expect(message).toBe('toolset "a" includes itself (a > b > c > a)');
      const direct = await expectConfigError(h, () => resolveToolset(['self'], { toolsets: { self: ['self'] } }), 'config.invalid_value');
      h.expect(direct).toBe('toolset "self" includes itself (self > self)');
    });

    h.it('a registered toolset named twice, not inside itself, is no cycle', async () => {
      const toolsets = { shared: [native('one')], left: ['shared'], right: ['shared', native('two')] };
      const resolved = await resolveToolset(['left', 'right'], { toolsets });
      h.expect(resolved.tools.map((t) => t.name)).toEqual(['one', 'two']);
    });

    h.it('a duplicate name says where each side came from and how to resolve it', async () => {
      const source = { id: 'mine', tools: async () => [native('dup')] };
      const message = await expectConfigError(h, () => resolveToolset([native('dup'), source]), 'toolset.duplicate_name');
      h.expect(message).toBe('tool "dup" comes from both a native tool and source "mine"; give one of the sources a prefix, or deny the tool on one side');
    });

    h.it("checks the final name of a source's tools", async () => {
      const bad = { ...native('ok'), name: 'not ok' };
      const message = await expectConfigError(h, () => resolveToolset([{ id: 'mine', tools: async () => [bad] }]), 'tool.invalid_name');
      h.expect(message.startsWith('source "mine": tool name "not ok" does not match')).toBe(true);
    });
  });
}
