/**
 * Unit tests for src/core/mcp/import-tools.ts: how a server's wire tool list becomes ToolDefs.
 * Filters on original names (deny wins, an omitted allow means all), the prefix, names and
 * duplicates refused, the host's approval and risk (never the server's annotations), the
 * def's exact members for each shape, the call target made once, and `onUnsupportedSchema:
 * 'skip'` leaving out only what the validator cannot take.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { CallTarget } from '../../src/core/mcp/call.js';
import type { McpCommonConfig } from '../../src/core/mcp/config-types.js';
import { importTools } from '../../src/core/mcp/import-tools.js';
import type { ToolContext } from '../../src/core/tools/types.js';

const wire = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: 'object' }, ...extra });
const ctx = {} as ToolContext;

/** importTools with a callTool that records its targets. */
function imported(tools: readonly Tool[], config: McpCommonConfig = {}) {
  const targets: CallTarget[] = [];
  const defs = importTools(tools, config, 'mcp:t', (target, input) => {
    targets.push(target);
    return Promise.resolve({ target: target.name, input });
  });
  return { defs, targets, names: defs.map((def) => def.name) };
}

describe('filters and names', () => {
  const list = [wire('read'), wire('write'), wire('delete')];

  it('all tools without allow or deny, in the order listed', () => {
    expect(imported(list).names).toEqual(['read', 'write', 'delete']);
  });

  it('allow keeps only its names; deny drops its names; deny wins over allow', () => {
    expect(imported(list, { allow: ['delete', 'read'] }).names).toEqual(['read', 'delete']);
    expect(imported(list, { deny: ['write'] }).names).toEqual(['read', 'delete']);
    expect(imported(list, { allow: ['read', 'write'], deny: ['write'] }).names).toEqual(['read']);
    expect(imported(list, { allow: [] }).names).toEqual([]);
  });

  it('filters match original names; the prefix is added after', () => {
    expect(imported(list, { prefix: 'fs', allow: ['read'] }).names).toEqual(['fs_read']);
    expect(imported(list, { prefix: 'fs', allow: ['fs_read'] }).names).toEqual([]);
  });

  it('a tool listed twice is refused, named by its original name; a denied twin is not', () => {
    expect(() => imported([wire('a'), wire('b'), wire('a')], { prefix: 'p' })).toThrow(
      expect.objectContaining({ code: 'tool.duplicate_name', message: 'mcp:t: the server lists tool "a" more than once' }),
    );
    expect(imported([wire('a'), wire('a')], { deny: ['a'] }).names).toEqual([]);
  });

  it('a name that is no valid tool name is refused, unless it is filtered out first', () => {
    expect(() => imported([wire('bad name')])).toThrow(expect.objectContaining({ code: 'tool.invalid_name' }));
    expect(imported([wire('bad name'), wire('ok')], { deny: ['bad name'] }).names).toEqual(['ok']);
  });
});

describe('the defs', () => {
  it('each shape has exactly its members; description falls back to the title, then to nothing', () => {
    const output = { type: 'object', properties: { n: { type: 'number' } } };
    const { defs } = imported(
      [wire('plain'), wire('titled', { title: 'Titled' }), wire('described', { description: 'D', title: 'T', outputSchema: output as Tool['outputSchema'] }), wire('risky')],
      { risk: { described: 'destructive', risky: 'read' } },
    );
    expect(defs.map((def) => Object.keys(def))).toEqual([
      ['name', 'description', 'parameters', 'needsApproval', 'execute'],
      ['name', 'description', 'parameters', 'needsApproval', 'execute'],
      ['name', 'description', 'parameters', 'outputSchema', 'needsApproval', 'risk', 'execute'],
      ['name', 'description', 'parameters', 'needsApproval', 'risk', 'execute'],
    ]);
    expect(defs.map((def) => def.description)).toEqual(['', 'Titled', 'D', '']);
    expect(defs[2]).toMatchObject({ outputSchema: output, risk: 'destructive' });
    expect(defs[3]).toMatchObject({ risk: 'read' });
    expect(defs.every((def) => Object.isFrozen(def))).toBe(true);
  });

  it('schemas are the server\'s own objects, shared rather than copied', () => {
    const tool = wire('a');
    expect(imported([tool]).defs[0]!.parameters).toBe(tool.inputSchema);
  });

  it('approval: true or false for every tool, or per original name; inherited names do not count', () => {
    const list = [wire('a'), wire('b')];
    expect(imported(list).defs.map((def) => def.needsApproval)).toEqual([false, false]);
    expect(imported(list, { approval: true }).defs.map((def) => def.needsApproval)).toEqual([true, true]);
    expect(imported(list, { approval: false }).defs.map((def) => def.needsApproval)).toEqual([false, false]);
    expect(imported(list, { approval: { b: true, a: false }, prefix: 'p' }).defs.map((def) => def.needsApproval)).toEqual([false, true]);
    const inherited = Object.create({ a: true }) as Record<string, boolean>;
    expect(imported(list, { approval: inherited }).defs.map((def) => def.needsApproval)).toEqual([false, false]);
    const inheritedRisk = Object.create({ a: 'destructive' }) as Record<string, 'destructive'>;
    expect(imported(list, { risk: inheritedRisk }).defs[0]).not.toHaveProperty('risk');
  });

  it("a server's annotations decide nothing", () => {
    const def = imported([wire('a', { annotations: { readOnlyHint: true, destructiveHint: false } })], { approval: true }).defs[0]!;
    expect([def.needsApproval, Object.hasOwn(def, 'risk')]).toEqual([true, false]);
  });

  it('execute calls the tool by its original name; the target is made once and says whether output is structured', async () => {
    const { defs, targets } = imported([wire('a', { outputSchema: { type: 'object' } }), wire('b')], { prefix: 'p' });
    expect(await defs[0]!.execute({ x: 1 }, ctx)).toEqual({ target: 'a', input: { x: 1 } });
    await defs[0]!.execute({}, ctx);
    await defs[1]!.execute({}, ctx);
    expect(targets).toEqual([
      { name: 'a', hasOutputSchema: true },
      { name: 'a', hasOutputSchema: true },
      { name: 'b', hasOutputSchema: false },
    ]);
    expect(targets[0]).toBe(targets[1]);
    expect(Object.isFrozen(targets[0])).toBe(true);
  });
});

describe('schemas', () => {
  const deep = (() => {
    let schema: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 120; i += 1) schema = { type: 'object', properties: { p: schema } };
    return schema as Tool['inputSchema'];
  })();
  const unsupported = { type: 'object', properties: { a: { $dynamicRef: '#x' } } } as Tool['inputSchema'];

  it('maxSchemaBytes is checked after the filter: a denied tool costs nothing', () => {
    expect(() => imported([wire('big', { inputSchema: deep })], { maxSchemaBytes: 10 })).toThrow(expect.objectContaining({ code: 'schema.unsupported' }));
    expect(imported([wire('big', { inputSchema: deep })], { maxSchemaBytes: 10, deny: ['big'] }).names).toEqual([]);
  });

  it("'skip' leaves out a tool the validator cannot take and tells the host; other refusals still refuse", () => {
    const skipped: unknown[] = [];
    const config: McpCommonConfig = { onUnsupportedSchema: 'skip', onToolSkipped: (info) => skipped.push(info) };
    expect(imported([wire('odd', { inputSchema: unsupported }), wire('ok')], config).names).toEqual(['ok']);
    expect(skipped).toEqual([{ name: 'odd', reason: expect.stringContaining('$dynamicRef') as unknown }]);
    expect(imported([wire('deep', { inputSchema: deep })], { ...config, maxSchemaBytes: 1e9 }).names).toEqual([]);
    expect(() => imported([wire('ok', { inputSchema: { type: 'object', d: 'x'.repeat(100) } as Tool['inputSchema'] })], { ...config, maxSchemaBytes: 50 })).toThrow(
      expect.objectContaining({ code: 'schema.too_large' }),
    );
    expect(imported([wire('odd', { inputSchema: unsupported })], { onUnsupportedSchema: 'skip' }).names).toEqual([]);
  });

  it("without 'skip' an unsupported schema is imported now and refused later, at resolveToolset", () => {
    expect(imported([wire('odd', { inputSchema: unsupported })]).names).toEqual(['odd']);
  });
});
