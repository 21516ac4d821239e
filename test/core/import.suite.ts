/** Importing tools over inprocess: filters, prefix, names, approval, risk, result mapping. */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { createPagedServer, tool } from '../fixtures/paged-server.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, pick, run } from './helpers.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';

const WORKBENCH = ['add_note', 'read_note', 'list_notes', 'delete_note', 'snapshot', 'sleep'];

/** A low-level server that lists `names` and answers every call with `result`. */
function fixedServer(names: readonly string[], result: CallToolResult = { content: [] }): Server {
  const server = new Server({ name: 'fixed', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: names.map((n) => tool(n)) }));
  server.setRequestHandler(CallToolRequestSchema, () => result);
  return server;
}

export function importSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;
  const workbench = (extra: object = {}) => mcp({ transport: 'inprocess', server: createWorkbenchServer(), ...extra });

  h.describe('importing tools (inprocess)', () => {
    h.it('imports every tool of an McpServer with its schemas and no version', async () => {
      await using source = workbench();
      const tools = await source.tools();
      h.expect(tools.map((t) => t.name)).toEqual(WORKBENCH);
      const add = pick(tools, 'add_note');
      h.expect(add.description).toBe('Store a note under a title (replaces an existing one).');
      h.expect(add.parameters).toMatchObject({ type: 'object', properties: { title: { type: 'string' } } });
      h.expect(add.outputSchema).toMatchObject({ type: 'object', properties: { count: { type: 'integer' } } });
      h.expect('version' in add).toBe(false);
      h.expect(add.needsApproval).toBe(false);
      h.expect('risk' in add).toBe(false);
    });

    h.it('imports from a low-level Server instance too', async () => {
      await using source = mcp({ transport: 'inprocess', server: fixedServer(['alpha', 'beta']) });
      h.expect((await source.tools()).map((t) => t.name)).toEqual(['alpha', 'beta']);
    });

    h.it('allow keeps only the named tools; deny wins over allow', async () => {
      await using source = workbench({ allow: ['read_note', 'delete_note', 'no_such_tool'], deny: ['delete_note'] });
      h.expect((await source.tools()).map((t) => t.name)).toEqual(['read_note']);
    });

    h.it('deny alone removes tools from the full list', async () => {
      await using source = workbench({ deny: ['sleep', 'snapshot'] });
      h.expect((await source.tools()).map((t) => t.name)).toEqual(['add_note', 'read_note', 'list_notes', 'delete_note']);
    });

    h.it('prefix namespaces final names while filters, risk and approval use original names', async () => {
      await using source = workbench({
        prefix: 'nb',
        allow: ['read_note', 'delete_note'],
        risk: { read_note: 'read', delete_note: 'destructive' },
        approval: { delete_note: true },
      });
      const tools = await source.tools();
      h.expect(tools.map((t) => [t.name, t.risk, t.needsApproval])).toEqual([
        ['nb_read_note', 'read', false],
        ['nb_delete_note', 'destructive', true],
      ]);
    });

    h.it('approval: true flags every imported tool', async () => {
      await using source = workbench({ approval: true });
      h.expect((await source.tools()).every((t) => t.needsApproval)).toBe(true);
    });

    h.it('server annotations never set risk or approval', async () => {
      await using source = workbench();
      const tools = await source.tools();
      // delete_note says destructiveHint and snapshot says readOnlyHint: neither counts.
      for (const name of ['delete_note', 'snapshot']) {
        h.expect(pick(tools, name).risk).toBeUndefined();
        h.expect(pick(tools, name).needsApproval).toBe(false);
      }
    });

    h.it('refuses a server name that is invalid after prefixing (tool.invalid_name)', async () => {
      for (const name of ['has.dot', 'has space', 'ünïcode', 'x'.repeat(65)]) {
        await using source = mcp({ transport: 'inprocess', server: fixedServer(['fine', name]) });
        const message = await expectConfigError(h, () => source.tools(), 'tool.invalid_name');
        h.expect(message).toContain(name.slice(0, 20));
      }
    });

    h.it('checks the final name: a prefix can push a 60-character name past 64', async () => {
      const long = 'n'.repeat(60);
      await using plain = mcp({ transport: 'inprocess', server: fixedServer([long]) });
      h.expect((await plain.tools()).map((t) => t.name)).toEqual([long]);
      await using prefixed = mcp({ transport: 'inprocess', server: fixedServer([long]), prefix: 'abcd' });
      await expectConfigError(h, () => prefixed.tools(), 'tool.invalid_name');
    });

    h.it('an invalid name that deny removes does not refuse the import', async () => {
      await using source = mcp({ transport: 'inprocess', server: fixedServer(['ok', 'bad.name']), deny: ['bad.name'] });
      h.expect((await source.tools()).map((t) => t.name)).toEqual(['ok']);
    });

    h.it('refuses the same name twice in one list (tool.duplicate_name)', async () => {
      const paged = createPagedServer({ pages: [['one', 'two'], ['two']] });
      await using source = mcp({ transport: 'inprocess', server: paged.server });
      const message = await expectConfigError(h, () => source.tools(), 'tool.duplicate_name');
      h.expect(message).toContain('two');
    });

    h.it('imported ToolDefs are frozen', async () => {
      await using source = workbench();
      const add = pick(await source.tools(), 'add_note');
      h.expect(Object.isFrozen(add)).toBe(true);
      h.expect(() => {
        (add as { name: string }).name = 'x';
      }).toThrow();
    });

    h.it("importing never freezes an in-process server's own schema objects", async () => {
      const query = { type: 'string', description: 'v1' };
      const server = new Server({ name: 'own', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'search', inputSchema: { type: 'object', properties: { query } } }] }));
      await using source = mcp({ transport: 'inprocess', server });
      await h.lib.resolveToolset([source]);
      h.expect(Object.isFrozen(query)).toBe(false);
      query.description = 'v2';
      h.expect(query.description).toBe('v2');
    });
  });

  h.describe('calling tools (inprocess)', () => {
    h.it('calls by original name and returns structured content when present', async () => {
      const calls: string[] = [];
      const server = new Server({ name: 'structured', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool('echo'), tool('plain')] }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        calls.push(request.params.name);
        const text = { type: 'text' as const, text: `text of ${request.params.name}` };
        // Only echo sends structuredContent; its text twin is what a client without it would read.
        return request.params.name === 'echo' ? { content: [text], structuredContent: { echoed: request.params.arguments } } : { content: [text] };
      });
      await using source = mcp({ transport: 'inprocess', server, prefix: 'p' });
      const tools = await source.tools();
      const result = await run(h, pick(tools, 'p_echo'), { a: 1 });
      h.expect(result).toMatchObject({ toolName: 'p_echo', isError: false });
      h.expect(result.output).toEqual({ echoed: { a: 1 } });
      // Without structuredContent the text is the output.
      h.expect(await run(h, pick(tools, 'p_plain'), {})).toMatchObject({ toolName: 'p_plain', isError: false, output: 'text of plain' });
      h.expect(calls).toEqual(['echo', 'plain']);
    });

    h.it('structuredContent is the output', async () => {
      await using source = workbench();
      const result = await run(h, pick(await source.tools(), 'add_note'), { title: 't', body: 'b' });
      h.expect(result).toMatchObject({ isError: false, output: { title: 't', count: 1 } });
    });

    h.it('text-only content is concatenated into one string', async () => {
      await using source = workbench();
      const tools = await source.tools();
      await run(h, pick(tools, 'add_note'), { title: 'a', body: '1' });
      await run(h, pick(tools, 'add_note'), { title: 'b', body: '2' });
      const result = await run(h, pick(tools, 'list_notes'), {});
      h.expect(result.output).toBe('a\nb\n');
    });

    h.it('mixed content keeps text and every typed part in order', async () => {
      const blocks: CallToolResult['content'] = [
        { type: 'text', text: 'before' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline', mimeType: 'text/plain' } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
        { type: 'text', text: 'after' },
      ];
      await using source = mcp({ transport: 'inprocess', server: fixedServer(['mixed'], { content: blocks }) });
      const result = await run(h, pick(await source.tools(), 'mixed'), {});
      h.expect(result.isError).toBe(false);
      h.expect(result.output).toEqual(blocks);
    });

    h.it('isError from the server is an error result with the server text (server_error)', async () => {
      await using source = workbench();
      const result = await run(h, pick(await source.tools(), 'read_note'), { title: 'missing' });
      h.expect(result).toMatchObject({ isError: true, reason: 'server_error', output: 'no note titled "missing"' });
    });

    h.it('a JSON-RPC error from the server is an error result naming the code', async () => {
      const server = new Server({ name: 'rpc-error', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool('strict')] }));
      server.setRequestHandler(CallToolRequestSchema, () => {
        throw new McpError(ErrorCode.InvalidParams, 'ms must be a number');
      });
      await using source = mcp({ transport: 'inprocess', server });
      const result = await run(h, pick(await source.tools(), 'strict'), { ms: 'soon' });
      h.expect(result).toMatchObject({ isError: true, reason: 'server_error' });
      h.expect(String(result.output)).toContain(`JSON-RPC error ${ErrorCode.InvalidParams}`);
      h.expect(String(result.output)).toContain('ms must be a number');
    });

    h.it('non-object arguments are refused before the wire (invalid_input)', async () => {
      const paged = createPagedServer({ pages: [['echo']] });
      await using source = mcp({ transport: 'inprocess', server: paged.server });
      const echo = pick(await source.tools(), 'echo');
      for (const input of [null, 'text', [1, 2], 3]) {
        h.expect(await run(h, echo, input)).toMatchObject({ isError: true, reason: 'invalid_input' });
      }
      h.expect(paged.toolCalls).toEqual([]);
    });

  });
}
