/**
 * One bus for every tool: resolveToolset over native tools, MCP sources and registered names,
 * toolset identity over a real (in-process) server, and dispatchTool end to end with the same
 * audit and result shapes for a native tool and an imported one.
 */
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import * as z4 from 'zod/v4';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { createPagedServer, tool as wireTool } from '../fixtures/paged-server.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectConfigError } from './helpers.js';

export function toolsetSuite(h: SuiteHarness): void {
  const { mcp, tool, resolveToolset, dispatchTool } = h.lib;
  const native = (name: string, extra: Record<string, unknown> = {}) =>
    tool({ name, description: `native ${name}`, parameters: { type: 'object' }, execute: () => `ran ${name}`, ...extra });

  h.describe('resolveToolset', () => {
    h.it('mixes native tools, sources and registered names in one frozen toolset', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'n', allow: ['read_note'] });
      const resolved = await resolveToolset([native('alpha'), notes, 'extras'], { toolsets: { extras: [native('beta')] } });
      h.expect(resolved.tools.map((t) => t.name)).toEqual(['alpha', 'n_read_note', 'beta']);
      h.expect(resolved.get('n_read_note')?.name).toBe('n_read_note');
      h.expect(Object.isFrozen(resolved)).toBe(true);
      h.expect(Object.isFrozen(resolved.tools)).toBe(true);
      h.expect(() => (resolved.tools as unknown[]).push(native('gamma'))).toThrow();
    });

    h.it('an unknown registered name refuses before any source is contacted', async () => {
      let connects = 0;
      const server = createWorkbenchServer();
      const counted = { connect: (t: Parameters<typeof server.connect>[0]) => ((connects += 1), server.connect(t)) };
      await using source = mcp({ transport: 'inprocess', server: counted });
      const message = await expectConfigError(h, () => resolveToolset([source, 'nope'], { toolsets: { other: [] } }), 'toolset.unknown_name');
      h.expect(message).toContain('"nope"');
      h.expect(connects).toBe(0);
    });

    h.it('a duplicate between a native tool and an MCP tool names both sides', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), allow: ['read_note'] });
      const message = await expectConfigError(h, () => resolveToolset([native('read_note'), notes]), 'toolset.duplicate_name');
      h.expect(message).toContain('"read_note"');
      h.expect(message).toContain('a native tool');
      h.expect(message).toContain(notes.id);
    });

    h.it('a duplicate between two MCP sources refuses; a prefix disambiguates', async () => {
      await using one = mcp({ transport: 'inprocess', server: createWorkbenchServer(), id: 'one' });
      await using two = mcp({ transport: 'inprocess', server: createWorkbenchServer(), id: 'two' });
      const message = await expectConfigError(h, () => resolveToolset([one, two]), 'toolset.duplicate_name');
      h.expect(message).toContain('"one"');
      h.expect(message).toContain('"two"');
      await using prefixed = mcp({ transport: 'inprocess', server: createWorkbenchServer(), id: 'three', prefix: 'b' });
      h.expect((await resolveToolset([one, prefixed])).tools.length).toBe(12);
    });

    h.it("a host's own ToolSource failing untyped becomes a typed SourceError", async () => {
      const broken = { id: 'mine', tools: async () => { throw new Error('boom'); } };
      const error = await caught(() => resolveToolset([broken]));
      h.expect(h.lib.SourceError.is(error)).toBe(true);
      h.expect((error as Error).message).toContain('"mine"');
    });

    h.it('the same source reached twice (directly and by name) counts once', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer() });
      const resolved = await resolveToolset([notes, 'again'], { toolsets: { again: [notes] } });
      h.expect(resolved.tools.length).toBe(6);
    });

    h.it('a later list_changed never changes a resolved toolset; the next resolve sees it', async () => {
      const paged = createPagedServer({ pages: [['a']] });
      await using source = mcp({ transport: 'inprocess', server: paged.server });
      const first = await resolveToolset([source]);
      paged.setPages([['a', 'b']]);
      await paged.notifyListChanged();
      let second = await resolveToolset([source]);
      for (let i = 0; i < 100 && second.tools.length === 1; i += 1) second = await resolveToolset([source]);
      h.expect(first.tools.map((t) => t.name)).toEqual(['a']);
      h.expect(second.tools.map((t) => t.name)).toEqual(['a', 'b']);
      h.expect(second.toolsetHash).not.toBe(first.toolsetHash);
    });
  });

  h.describe('tool() schema forms', () => {
    const forms = {
      'zod v3': z.object({ city: z.string(), days: z.number().int().min(1) }),
      'zod v4': z4.object({ city: z4.string(), days: z4.number().int().min(1) }),
      'a Standard JSON Schema carrier': {
        '~standard': {
          jsonSchema: {
            input: () => ({ type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city', 'days'] }),
          },
        },
      },
    };
    for (const [label, parameters] of Object.entries(forms)) {
      h.it(`accepts ${label} as parameters and validates with the eval-free validator`, async () => {
        const forecast = tool({ name: 'forecast', description: 'weather', parameters, execute: (input) => input });
        h.expect(forecast.parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
        const toolset = await resolveToolset([forecast]);
        const ok = await dispatchTool(toolset, { id: '1', name: 'forecast', input: { city: 'Oslo', days: 2 } });
        h.expect(ok).toMatchObject({ status: 'done', result: { isError: false, output: { city: 'Oslo', days: 2 } } });
        const bad = await dispatchTool(toolset, { id: '2', name: 'forecast', input: { city: 'Oslo', days: 0 } });
        h.expect(bad).toMatchObject({ status: 'done', result: { isError: true, reason: 'invalid_input' } });
      });
    }

    h.it('refuses a Standard Schema that cannot describe itself as JSON Schema', async () => {
      const opaque = { '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } };
      await expectConfigError(h, () => tool({ name: 'x', description: '', parameters: opaque as never, execute: () => 1 }), 'config.invalid_value');
    });
  });

  h.describe('toolset identity over a real server', () => {
    const resolveWith = async (description: string, extra: Record<string, unknown> = {}) => {
      const paged = createPagedServer({ pages: [['a']] });
      const server = paged.server;
      // Rewrite what the server lists, as an upgraded server would.
      const listed = wireTool('a', { description });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [listed] }));
      await using source = mcp({ transport: 'inprocess', server, ...extra });
      return await resolveToolset([source]); // await: `using` disposes when the function returns
    };

    h.it('description drift changes toolsetHash, not authorityHash', async () => {
      const before = await resolveWith('v1');
      const after = await resolveWith('v2');
      h.expect(after.toolsetHash).not.toBe(before.toolsetHash);
      h.expect(after.authorityHash).toBe(before.authorityHash);
    });

    h.it('a risk label or an approval flag changes authorityHash only', async () => {
      const base = await resolveWith('v1');
      const risky = await resolveWith('v1', { risk: { a: 'destructive' } });
      const gated = await resolveWith('v1', { approval: true });
      for (const changed of [risky, gated]) {
        h.expect(changed.toolsetHash).toBe(base.toolsetHash);
        h.expect(changed.authorityHash).not.toBe(base.authorityHash);
      }
    });

    h.it('an attestation refuses a drifted server, naming the changed tool', async () => {
      const pin = await h.lib.attestToolset(await resolveWith('v1'));
      await h.lib.checkToolsetAttestation(await resolveWith('v1'), pin);
      const error = await caught(async () => h.lib.checkToolsetAttestation(await resolveWith('v2'), pin));
      h.expect(h.lib.ConfigError.is(error)).toBe(true);
      h.expect((error as { code: string }).code).toBe('toolset.attestation_mismatch');
      h.expect((error as Error).message).toContain('"a"');
    });
  });

  h.describe('dispatchTool end to end', () => {
    h.it('a native tool and an MCP tool give the same result and audit shapes', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), prefix: 'n', risk: { list_notes: 'read' } });
      const toolset = await resolveToolset([native('hello', { risk: 'read' }), notes]);
      const a = await dispatchTool(toolset, { id: '1', name: 'hello', input: {} });
      const b = await dispatchTool(toolset, { id: '2', name: 'n_list_notes', input: {} });
      for (const outcome of [a, b]) {
        h.expect(outcome.status).toBe('done');
        h.expect(Object.keys(outcome).sort()).toEqual(['audit', 'input', 'result', 'status']);
        h.expect(outcome.audit).toMatchObject({ verdict: 'allow', layer: 'default', advisory: [] });
      }
      h.expect(a).toMatchObject({ result: { callId: '1', toolName: 'hello', isError: false, output: 'ran hello' } });
      h.expect(b).toMatchObject({ result: { callId: '2', toolName: 'n_list_notes', isError: false, output: '' } });
    });

    h.it('presets govern imported tools by host risk labels; undeclared asks under standard', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), risk: { delete_note: 'destructive', read_note: 'read' } });
      const toolset = await resolveToolset([notes]);
      const strict = { preset: 'strict' } as const;
      const denied = await dispatchTool(toolset, { id: '1', name: 'delete_note', input: { title: 'x' } }, { permissions: strict });
      h.expect(denied).toMatchObject({ status: 'done', result: { isError: true, reason: 'denied' }, audit: { verdict: 'deny', layer: 'deny-rule', preset: 'strict' } });
      h.expect(String(denied.status === 'done' && denied.result.output)).toContain('delete_note');
      const read = await dispatchTool(toolset, { id: '2', name: 'read_note', input: { title: 'x' } }, { permissions: strict });
      h.expect(read).toMatchObject({ status: 'done', audit: { verdict: 'allow' } });
      const undeclared = await dispatchTool(toolset, { id: '3', name: 'list_notes', input: {} }, { permissions: { preset: 'standard' } });
      h.expect(undeclared).toMatchObject({ status: 'ask', audit: { verdict: 'ask', layer: 'ask-rule' } });
    });

    h.it('a bare preset judges every risk exactly as the same preset merged with other configs', async () => {
      const risks = [undefined, 'read', 'write', 'network', 'execute', 'destructive'] as const;
      const toolset = await resolveToolset(risks.map((risk) => native(`t_${risk ?? 'none'}`, risk === undefined ? {} : { risk })));
      for (const preset of ['strict', 'standard', 'open'] as const) {
        for (const { name } of toolset.tools) {
          const outcome = (permissions: Parameters<typeof dispatchTool>[2]) => dispatchTool(toolset, { id: name, name, input: {} }, permissions);
          // The first is the bare preset; the others take the general merges.
          const [bare, ...merged] = await Promise.all([
            outcome({ permissions: { preset } }),
            outcome({ permissions: { preset, deny: [] } }),
            outcome({ permissions: [{ preset }, {}] }),
          ]);
          for (const other of merged) h.expect({ preset, name, outcome: bare }).toEqual({ preset, name, outcome: other });
        }
      }
    });

    h.it('an approval-flagged tool asks at the terminal default; a hook rewrites input before execute', async () => {
      await using notes = mcp({ transport: 'inprocess', server: createWorkbenchServer(), approval: { add_note: true } });
      const toolset = await resolveToolset([notes]);
      const asked = await dispatchTool(toolset, { id: '1', name: 'add_note', input: { title: 't', body: 'b' } });
      h.expect(asked).toMatchObject({ status: 'ask', audit: { layer: 'default' } });
      const hooks = [() => ({ modifiedInput: { title: 'rewritten', body: 'b' } }), () => 'allow' as const];
      const done = await dispatchTool(toolset, { id: '2', name: 'add_note', input: { title: 't', body: 'b' } }, { permissions: { hooks } });
      h.expect(done).toMatchObject({ status: 'done', input: { title: 'rewritten' }, result: { output: { title: 'rewritten', count: 1 } }, audit: { layer: 'hook' } });
    });

    h.it('a malformed call or an unprintable throw is still a result, never an exception', async () => {
      const weird = tool({ name: 'weird', description: '', parameters: { type: 'object' }, execute: () => { throw Object.create(null); } });
      const toolset = await resolveToolset([weird]);
      h.expect(await dispatchTool(toolset, { id: '1', name: 'weird', input: {} })).toMatchObject({ result: { isError: true, reason: 'execution' } });
      const malformed = await dispatchTool(toolset, { id: 7, name: { toString: null } } as never);
      h.expect(malformed).toMatchObject({ status: 'done', result: { isError: true, reason: 'invalid_input' } });
    });

    h.it('a hook that edits the input in place is re-validated before execute', async () => {
      let ran = 0;
      const counted = tool({ name: 'counted', description: '', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, execute: () => (ran += 1) });
      const toolset = await resolveToolset([counted]);
      const hooks = [(call: { input: unknown }) => void ((call.input as { n: unknown }).n = 'sneaky')];
      const input = { n: 1 };
      const outcome = await dispatchTool(toolset, { id: '1', name: 'counted', input }, { permissions: { hooks } });
      h.expect(outcome).toMatchObject({ status: 'done', result: { isError: true, reason: 'invalid_input' } });
      h.expect(ran).toBe(0);
    });

    h.it('a hook rewrite that breaks the schema is refused before execute', async () => {
      let ran = 0;
      const counted = tool({ name: 'counted', description: '', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, execute: () => (ran += 1) });
      const toolset = await resolveToolset([counted]);
      const hooks = [() => ({ modifiedInput: { n: 'not a number' } })];
      const outcome = await dispatchTool(toolset, { id: '1', name: 'counted', input: { n: 1 } }, { permissions: { hooks } });
      h.expect(outcome).toMatchObject({ status: 'done', result: { isError: true, reason: 'invalid_input' } });
      h.expect(ran).toBe(0);
    });
  });
}
