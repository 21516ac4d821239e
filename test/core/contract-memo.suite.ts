/**
 * The contract memo (src/core/bus/contract-memo.ts) must be sound: a resolved toolset's
 * hashes are what a fresh computation gives for what it holds, cold and warm, native and
 * imported; a changed contract (a new ToolDef, a list swept again after list_changed, a
 * reassigned field) gets a new hash; one ToolDef hashes the same in every toolset; and what a
 * toolset shows a model, validates and hashes is one read of the tool, whatever its getters
 * return or whoever changes the objects it came from afterwards.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedToolset, ToolDef } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';
import { canonical, digest } from './resolve-fast.suite.js';

/** The hashes computed from scratch over what `tools` hold, by the suite's own canonical writer. */
async function fresh(tools: readonly ToolDef[]): Promise<{ toolsetHash: string; authorityHash: string }> {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
  const contracts = sorted.map(({ name, description, parameters, outputSchema, version }) => ({ name, description, parameters, outputSchema, version }));
  const authorities = sorted.map(({ name, needsApproval, risk }) => ({ name, needsApproval, risk }));
  return { toolsetHash: await digest(canonical(contracts)), authorityHash: await digest(canonical(authorities)) };
}

const hashes = (toolset: ResolvedToolset) => ({ toolsetHash: toolset.toolsetHash, authorityHash: toolset.authorityHash });

/** A server listing `listed` as it stands when asked, the same objects every time, as in-process servers do. */
function listingServer(listed: Tool[]): Server {
  const server = new Server({ name: 'memo', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [], structuredContent: { echoed: request.params.arguments?.['q'] } }));
  return server;
}

const search = (maxLength: number): Tool => ({
  name: 'search',
  description: 'Searches.',
  inputSchema: { type: 'object', properties: { q: { type: 'string', maxLength } }, required: ['q'] },
  outputSchema: { type: 'object', properties: { echoed: { type: 'string' } } },
});

export function contractMemoSuite(h: SuiteHarness): void {
  const { mcp, tool, resolveToolset, dispatchTool, toolsetHash, authorityHash, attestToolset } = h.lib;
  const native = (name: string, maxLength = 5, extra: Record<string, unknown> = {}) =>
    tool({ name, description: `native ${name}`, parameters: { type: 'object', properties: { q: { type: 'string', maxLength } } }, execute: () => 'ok', ...extra });
  const rejects = async (toolset: ResolvedToolset, name: string, input: unknown) => {
    const outcome = await dispatchTool(toolset, { id: 'c', name, input });
    return outcome.status === 'done' && outcome.result.reason === 'invalid_input';
  };

  h.describe('contract memo', () => {
    h.it('hashes a resolved toolset as a fresh computation does, native and imported, cold and warm', async () => {
      await using source = mcp({ transport: 'inprocess', server: listingServer([search(10)]), risk: { search: 'read' }, approval: { search: true } });
      const tools = [native('alpha', 5, { risk: 'write', version: '2' }), native('beta', 7), source];
      const cold = await resolveToolset(tools);
      const warm = await resolveToolset(tools);
      const expected = await fresh(cold.tools);
      h.expect(hashes(cold)).toEqual(expected);
      h.expect(hashes(warm)).toEqual(expected);
      // The public functions agree, over the toolset's own tools and over plain copies no memo knows.
      const plain = JSON.parse(JSON.stringify(cold.tools)) as ToolDef[];
      h.expect({ toolsetHash: await toolsetHash(cold.tools), authorityHash: await authorityHash(cold.tools) }).toEqual(expected);
      h.expect({ toolsetHash: await toolsetHash(plain), authorityHash: await authorityHash(plain) }).toEqual(expected);
      // What the server listed, hashed independently, is what the toolset holds.
      h.expect(cold.get('search')?.parameters).toEqual(search(10).inputSchema);
    });

    h.it('gives a changed contract a new hash: a new ToolDef of the same name, a reassigned field', async () => {
      const before = await resolveToolset([native('alpha', 5)]);
      const after = await resolveToolset([native('alpha', 6)]);
      h.expect(after.toolsetHash).not.toBe(before.toolsetHash);
      h.expect(hashes(after)).toEqual(await fresh(after.tools));
      // A host's own (unfrozen) ToolDef: a field reassigned between resolves is a new contract.
      const mine: { -readonly [K in keyof ToolDef]: ToolDef[K] } = { name: 'mine', description: 'd', parameters: { type: 'object', properties: { q: { type: 'string', maxLength: 5 } } }, needsApproval: false, execute: async () => 'ok' };
      const first = await resolveToolset([mine]);
      mine.parameters = { type: 'object', properties: { q: { type: 'string', maxLength: 50 } } };
      mine.needsApproval = true;
      const second = await resolveToolset([mine]);
      h.expect(second.toolsetHash).not.toBe(first.toolsetHash);
      h.expect(second.authorityHash).not.toBe(first.authorityHash);
      h.expect(hashes(second)).toEqual(await fresh(second.tools));
      h.expect([await rejects(first, 'mine', { q: 'toolong' }), await rejects(second, 'mine', { q: 'toolong' })]).toEqual([true, false]);
      // An object that inherits from a sealed ToolDef and says otherwise is not taken for it.
      const heir = Object.create(before.tools[0] ?? null, { parameters: { value: { type: 'object', properties: { q: { type: 'string', maxLength: 60 } } }, enumerable: true } }) as ToolDef;
      const inherited = await resolveToolset([heir]);
      h.expect(inherited.toolsetHash).not.toBe(before.toolsetHash);
      h.expect(hashes(inherited)).toEqual(await fresh(inherited.tools));
    });

    h.it('gives a server re-listed after list_changed with a changed schema a new hash and the new validation', async () => {
      const listed = [search(5)];
      const server = listingServer(listed);
      await using source = mcp({ transport: 'inprocess', server });
      const before = await resolveToolset([source]);
      listed[0] = search(50);
      await server.sendToolListChanged();
      let after = await resolveToolset([source]);
      for (let i = 0; i < 100 && after.toolsetHash === before.toolsetHash; i += 1) after = await resolveToolset([source]);
      h.expect(after.toolsetHash).not.toBe(before.toolsetHash);
      h.expect(hashes(after)).toEqual(await fresh(after.tools));
      h.expect([await rejects(before, 'search', { q: 'sixsix' }), await rejects(after, 'search', { q: 'sixsix' })]).toEqual([true, false]);
    });

    h.it('hashes one ToolDef the same in every toolset it is in, and resolves it to the same object', async () => {
      await using source = mcp({ transport: 'inprocess', server: listingServer([search(10)]) });
      const shared = native('shared');
      const one = await resolveToolset([shared, native('other'), source]);
      const two = await resolveToolset([source, native('third'), shared]);
      const pinsOf = async (toolset: ResolvedToolset) => (await attestToolset(toolset)).tools.filter((t) => t.name === 'shared' || t.name === 'search');
      h.expect(await pinsOf(two)).toEqual(await pinsOf(one));
      h.expect((await pinsOf(one)).length).toBe(2);
      h.expect([two.get('shared'), two.get('search')]).toEqual([one.get('shared'), one.get('search')]);
      h.expect(two.get('search')).toBe(one.get('search'));
      // A toolset's own tools resolved again are the same sealed tools, hashed the same.
      h.expect(hashes(await resolveToolset([...one.tools]))).toEqual(hashes(one));
    });

    h.it('shows, validates and hashes one read of a schema whose getter changes its answer', async () => {
      let reads = 0;
      const q = {
        type: 'string',
        get maxLength() {
          reads += 1;
          return reads === 1 ? 5 : 500;
        },
      };
      const tricky: ToolDef = { name: 'tricky', description: 'd', parameters: { type: 'object', properties: { q } }, needsApproval: false, execute: async () => 'ok' };
      const toolset = await resolveToolset([tricky]);
      const shown = toolset.get('tricky')?.parameters as { properties: { q: { maxLength: number } } };
      h.expect(shown.properties.q.maxLength).toBe(5);
      h.expect(Object.getOwnPropertyDescriptor(shown.properties.q, 'maxLength')).toMatchObject({ value: 5, writable: false });
      h.expect(await rejects(toolset, 'tricky', { q: 'toolong' })).toBe(true);
      h.expect(hashes(toolset)).toEqual(await fresh(toolset.tools));
      h.expect(reads).toBe(1);
    });

    h.it('gives up copying shared subobjects that would unroll to 2^40 values, and admission refuses them', async () => {
      let node: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 40; i += 1) node = { allOf: [node, node] }; // 81 levels deep, under the limit
      const graph: ToolDef = { name: 'graph', description: 'd', parameters: { type: 'object', properties: { x: node } }, needsApproval: false, execute: async () => 'ok' };
      const message = await expectConfigError(h, () => resolveToolset([graph]), 'schema.unsupported');
      // Copy and admission each count up to their bound (a million values); unrolled, the copy would not end.
      h.expect(message).toContain('more than 1000000 values');
    }, 30_000);

    h.it('keeps what a toolset shows, validates and hashes when the objects it came from change', async () => {
      const listed = [search(5)];
      await using source = mcp({ transport: 'inprocess', server: listingServer(listed) });
      const before = await resolveToolset([source]);
      // The server changes the very object it listed, and says nothing; the source's own
      // ToolDef shares it (so this test has something to guard against).
      ((listed[0] as Tool).inputSchema.properties as { q: { maxLength: number } }).q.maxLength = 500;
      const [original] = await source.tools();
      h.expect((original?.parameters as { properties: { q: { maxLength: number } } }).properties.q.maxLength).toBe(500);
      const warm = await resolveToolset([source]);
      for (const toolset of [before, warm]) {
        h.expect(toolset.get('search')?.parameters).toEqual(search(5).inputSchema);
        h.expect(hashes(toolset)).toEqual(await fresh(toolset.tools));
        h.expect(await rejects(toolset, 'search', { q: 'toolong' })).toBe(true);
      }
      h.expect(hashes(warm)).toEqual(hashes(before));
      // And nobody can change the toolset's own copy.
      const held = warm.get('search')?.parameters as { properties: { q: { maxLength: number } } };
      h.expect(() => {
        held.properties.q.maxLength = 500;
      }).toThrow(TypeError);
      h.expect([Object.isFrozen(held), Object.isFrozen(held.properties), Object.isFrozen(held.properties.q)]).toEqual([true, true, true]);
    });
  });
}
