/**
 * Schemas, validation and results (spec/mcp.md "Schema handling", "Result mapping", "Failure
 * behavior"): admission into the eval-free subset, arguments checked before any wire call,
 * structured output checked against the declared outputSchema on every page, and every
 * server outcome a well-formed result from dispatchTool.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, McpToolSource, ToolDef } from '../../src/core/index.js';
import { rawServer } from '../fixtures/raw-server.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

type Answer = (name: string, args: unknown) => unknown;

/** A two-page server whose tools and answers the test declares, counting calls. */
function scriptedServer(pages: Tool[][], answer: Answer) {
  const calls: { name: string; args: unknown }[] = [];
  const server = new Server({ name: 'scripted', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const index = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    return { tools: pages[index] ?? [], ...(index + 1 < pages.length ? { nextCursor: String(index + 1) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push({ name: request.params.name, args: request.params.arguments });
    return (await answer(request.params.name, request.params.arguments)) as never;
  });
  return { server, calls };
}

const obj = (properties: Record<string, JsonSchema>, extra: Record<string, unknown> = {}) =>
  ({ type: 'object', properties, ...extra }) as Tool['inputSchema'];

const NOTE_OUT = obj({ id: { type: 'integer' }, title: { type: 'string' } }, { required: ['id', 'title'] });

export function schemaSuite(h: SuiteHarness): void {
  const { mcp, resolveToolset, dispatchTool, tool } = h.lib;
  const inprocess = (server: Server): McpToolSource => mcp({ transport: 'inprocess', server });
  let n = 0;
  const dispatch = async (source: McpToolSource | ToolDef, name: string, input: unknown) => {
    const toolset = await resolveToolset([source]);
    n += 1;
    return dispatchTool(toolset, { id: `c${n}`, name, input });
  };
  const resultOf = async (source: McpToolSource | ToolDef, name: string, input: unknown) => {
    const outcome = await dispatch(source, name, input);
    if (outcome.status !== 'done') throw new Error(`expected done, got ${outcome.status}`);
    return outcome.result;
  };

  h.describe('schema admission', () => {
    const refusesAt = async (schema: Record<string, unknown>, pointer: string, words: string) => {
      const { server } = scriptedServer([[{ name: 'bad', inputSchema: schema as Tool['inputSchema'] }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const message = await expectConfigError(h, () => resolveToolset([source]), 'schema.unsupported');
      h.expect(message).toContain('"bad"');
      h.expect(message).toContain(pointer);
      h.expect(message).toContain(words);
    };

    h.it('refuses $dynamicRef and $dynamicAnchor, naming the pointer', async () => {
      await refusesAt(obj({ a: { $dynamicRef: '#node' } }), '/properties/a/$dynamicRef', 'outside the supported subset');
      await refusesAt(obj({}, { $defs: { n: { $dynamicAnchor: 'node' } } }), '/$defs/n/$dynamicAnchor', 'outside');
    });

    h.it('refuses a remote $ref and an unresolvable local one', async () => {
      await refusesAt(obj({ a: { $ref: 'https://schemas.example.com/a.json' } }), '/properties/a/$ref', 'remote');
      await refusesAt(obj({ a: { $ref: '#/$defs/missing' } }), '/properties/a/$ref', 'does not resolve');
    });

    h.it('refuses a pattern that is not a valid u-flag RegExp', async () => {
      await refusesAt(obj({ a: { type: 'string', pattern: '([a-z' } }), '/properties/a/pattern', 'u-flag');
      await refusesAt(obj({}, { patternProperties: { '\\p{NoSuchProperty}': {} } }), '/patternProperties', 'u-flag');
    });

    h.it('refuses a schema nested 10,000 deep without overflowing the stack', async () => {
      let deep: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 10_000; i += 1) deep = { type: 'object', properties: { x: deep } };
      await refusesAt(deep, '(root)', 'deeper than');
    });

    h.it('refuses subschemas that loop on the same instance (cyclic $ref)', async () => {
      await refusesAt(obj({}, { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }), '/$defs/', 'cycle');
      await refusesAt(obj({}, { allOf: [{ $ref: '#' }] }), '', 'cycle');
    });

    h.it('refuses a $ref into a subtree the checks never saw (an unknown keyword)', async () => {
      await refusesAt(obj({ a: { $ref: '#/x-evil' } }, { 'x-evil': { type: 'string', pattern: '^(a+)+$' } }), '/properties/a/$ref', 'outside');
    });

    h.it('validates with what was admitted, even if the schema object changes afterwards', async () => {
      const title = { type: 'string', maxLength: 5 };
      const server = new Server({ name: 'mutable', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'note', inputSchema: obj({ title }) }] }));
      await using source = inprocess(server);
      const toolset = await resolveToolset([source]);
      title.maxLength = 500;
      const outcome = await dispatchTool(toolset, { id: 'm1', name: 'note', input: { title: 'far too long' } });
      h.expect(outcome).toMatchObject({ status: 'done', result: { reason: 'invalid_input' } });
    });

    h.it('admits a pattern with nested repetition and matches it without backtracking', async () => {
      const schema = obj({ a: { type: 'string', pattern: '^(a+)+$' } }, { patternProperties: { '^(\\w+\\s?)*$': { type: 'integer' } } });
      const { server, calls } = scriptedServer([[{ name: 'nested', inputSchema: schema }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const result = await resultOf(source, 'nested', { a: `${'a'.repeat(5_000)}!` });
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
      h.expect(String(result.output)).toContain('/a: pattern');
      const key = `${'word '.repeat(2_000)}!`;
      h.expect((await resultOf(source, 'nested', { [key]: 'not matched, so not checked' })).isError).toBe(false);
      h.expect(calls.length).toBe(1);
    });

    h.it('refuses a pattern the linear-time engine cannot run (backreference, lookaround)', async () => {
      await refusesAt(obj({ a: { type: 'string', pattern: '^(a)\\1$' } }), '/properties/a/pattern', 'uses a backreference');
      await refusesAt(obj({}, { patternProperties: { '^(?!x)': {} } }), '/patternProperties', 'uses lookahead');
    });

    h.it('refuses a schema whose distinct patterns add up past the schema-wide cap (memory kept per pattern)', async () => {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 20; i += 1) properties[`p${i}`] = { type: 'string', pattern: `^[a-z]{9000}${String.fromCharCode(65 + i)}` };
      await refusesAt(obj(properties as Record<string, JsonSchema>), '/pattern', 'add up to more than 50000 instructions');
    });

    h.it('a value that cannot be read as JSON (a throwing getter) is invalid_output, not an exception', async () => {
      const output = Object.defineProperty({}, 'x', { enumerable: true, get: () => { throw new Error('boom'); } });
      const native = tool({ name: 'g', description: '', parameters: { type: 'object' }, outputSchema: { type: 'object' }, execute: () => output });
      const result = await resultOf(native, 'g', {});
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_output' });
    });

    h.it('refuses $ref fan-out that would validate one value exponentially often', async () => {
      const defs: Record<string, unknown> = { d20: { type: 'string' } };
      for (let i = 0; i < 20; i += 1) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
      await refusesAt(obj({ a: { $ref: '#/$defs/d0' } }, { $defs: defs }), '/$defs/d', 'validated');
    });

    h.it('refuses recursion that validates one child value twice per level (2^depth through the data)', async () => {
      const twice = { properties: { x: { $ref: '#' } }, patternProperties: { '^x$': { $ref: '#' } } };
      await refusesAt(obj({}, twice), '(root)', 'several subschemas');
      const arrays = { type: 'array', items: { $ref: '#/$defs/n' }, contains: { $ref: '#/$defs/n' } };
      await refusesAt(obj({ list: { $ref: '#/$defs/n' } }, { $defs: { n: arrays } }), '/$defs/n', 'several subschemas');
    });

    h.it("format 'url' (whose validator regex backtracks exponentially) is an annotation, not a check", async () => {
      const { server, calls } = scriptedServer([[{ name: 'open', inputSchema: obj({ u: { type: 'string', format: 'url' } }) }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const started = Date.now();
      h.expect((await resultOf(source, 'open', { u: `http://${'a'.repeat(40)}!` })).isError).toBe(false);
      h.expect(Date.now() - started).toBeLessThan(2_000);
      h.expect(calls.length).toBe(1);
    });

    h.it('checks subschemas under draft-07 dependencies too', async () => {
      await refusesAt(obj({}, { dependencies: { a: { properties: { b: { $ref: 'https://x.example/s.json' } } } } }), '/dependencies/a', 'remote');
      await refusesAt(obj({}, { dependencies: { a: { properties: { b: { pattern: '([' } } } } }), '/dependencies/a', 'u-flag');
    });

    h.it('admits recursion that descends into the data, and validates it', async () => {
      const tree = obj({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, { required: ['name'] });
      const { server, calls } = scriptedServer([[{ name: 'tree', inputSchema: tree }]], () => ({ content: [{ type: 'text', text: 'ok' }] }));
      await using source = inprocess(server);
      h.expect((await resultOf(source, 'tree', { name: 'a', children: [{ name: 'b', children: [] }] })).isError).toBe(false);
      const bad = await resultOf(source, 'tree', { name: 'a', children: [{ children: [] }] });
      h.expect(bad).toMatchObject({ isError: true, reason: 'invalid_input' });
      h.expect(String(bad.output)).toContain('/children/0');
      h.expect(calls.length).toBe(1);
    });

    h.it('admits a 1 MB enum and validates against it correctly', async () => {
      const values = Array.from({ length: 60_000 }, (_, i) => `value-${i}-${'x'.repeat(8)}`);
      const { server } = scriptedServer([[{ name: 'pick', inputSchema: obj({ v: { enum: values } }) }]], () => ({ content: [] }));
      await using source = inprocess(server);
      h.expect((await resultOf(source, 'pick', { v: values[59_999] })).isError).toBe(false);
      h.expect(await resultOf(source, 'pick', { v: 'nope' })).toMatchObject({ reason: 'invalid_input' });
    });

    h.it('refuses a bad schema on any page when the toolset is resolved, not at first call', async () => {
      const good: Tool = { name: 'good', inputSchema: obj({}) };
      const bad: Tool = { name: 'later', inputSchema: obj({ a: { $ref: '#/nowhere' } }) };
      const { server, calls } = scriptedServer([[good], [bad]], () => ({ content: [] }));
      await using source = inprocess(server);
      const message = await expectConfigError(h, () => resolveToolset([source]), 'schema.unsupported');
      h.expect(message).toContain('"later"');
      h.expect(calls.length).toBe(0);
    });

    // Each backtracks exponentially in a backtracking engine on the text beside it; the third
    // element is whether the pattern matches that text.
    const CATASTROPHIC: readonly [string, string, boolean][] = [
      ['^(a+)+$', `${'a'.repeat(40)}!`, false],
      ['(a|aa)+$', `${'a'.repeat(40)}!`, false],
      ['(\\w|\\d)+$', `${'1'.repeat(40)}!`, false],
      ['^(a?a?)+$', `${'a'.repeat(40)}!`, false],
      ['^(.*a){20}$', 'a'.repeat(40), true],
      ['(a[^b]*)*$', `${'a'.repeat(40)}b`, true],
      ['(x+x+)+y', 'x'.repeat(40), false],
      ['^(\\w+\\s?)*$', `${'a '.repeat(40)}!`, false],
    ];
    h.it('admits patterns shaped for exponential backtracking and answers them correctly', async () => {
      for (const [pattern, text, matches] of CATASTROPHIC) {
        const native = tool({ name: 'p', description: '', parameters: { type: 'object', properties: { a: { type: 'string', pattern } } }, execute: () => 1 });
        const result = await resultOf(native, 'p', { a: text });
        h.expect({ pattern, valid: !result.isError }).toEqual({ pattern, valid: matches });
      }
    });

    h.it('refuses a schema that is not plain JSON', async () => {
      const execute = () => 1;
      await expectConfigError(h, () => tool({ name: 'f', description: '', parameters: { type: 'object', default: new Date() }, execute }), 'schema.unsupported');
    });

    h.it('tool() admits native schemas the same way', async () => {
      const execute = () => 'x';
      await expectConfigError(h, () => tool({ name: 'n', description: '', parameters: { $dynamicRef: '#a' }, execute }), 'schema.unsupported');
      await expectConfigError(h, () => tool({ name: 'n', description: '', parameters: { type: 'object' }, outputSchema: { $ref: 'http://x/y' }, execute }), 'schema.unsupported');
    });
  });

  h.describe('arguments', () => {
    const strict = obj({ title: { type: 'string', maxLength: 100 }, count: { type: 'integer', minimum: 1 } }, { required: ['title'], additionalProperties: false });

    h.it('invalid arguments are an invalid_input result naming each issue; the server sees no call', async () => {
      const { server, calls } = scriptedServer([[{ name: 'note', inputSchema: strict }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const result = await resultOf(source, 'note', { title: 5, count: 0 });
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
      const text = String(result.output);
      h.expect(text).toContain('/title');
      h.expect(text).toContain('type');
      h.expect(text).toContain('/count');
      h.expect(text).toContain('minimum');
      h.expect(calls).toEqual([]);
    });

    h.it('extra keys under additionalProperties: false, a missing required key, a huge string', async () => {
      const { server, calls } = scriptedServer([[{ name: 'note', inputSchema: strict }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const extra = await resultOf(source, 'note', { title: 't', sneaky: true });
      h.expect(String(extra.output)).toContain('sneaky');
      h.expect(String((await resultOf(source, 'note', {})).output)).toContain('required');
      h.expect(await resultOf(source, 'note', { title: 'x'.repeat(1_000_000) })).toMatchObject({ reason: 'invalid_input' });
      h.expect(calls).toEqual([]);
    });

    h.it('__proto__ payloads are refused or forwarded as data; no prototype changes', async () => {
      const received: unknown[] = [];
      const server = rawServer((method, params) => {
        if (method === 'tools/list') return { tools: [{ name: 'note', inputSchema: strict }, { name: 'open', inputSchema: { type: 'object' } }] };
        received.push(params['arguments']);
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      await using source = mcp({ transport: 'inprocess', server });
      const payload = JSON.parse('{"title":"t","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown;
      h.expect(await resultOf(source, 'note', payload)).toMatchObject({ reason: 'invalid_input' });
      h.expect((await resultOf(source, 'open', payload)).isError).toBe(false);
      h.expect(received).toHaveLength(1);
      h.expect(Object.prototype.hasOwnProperty.call(received[0], '__proto__')).toBe(true);
      h.expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      h.expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    });

    h.it('uniqueItems over 20,000 objects is hashed, not compared pair by pair', async () => {
      const { server, calls } = scriptedServer([[{ name: 'set', inputSchema: obj({ v: { type: 'array', uniqueItems: true } }) }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const v = Array.from({ length: 20_000 }, (_, i) => ({ i, tag: 'same' }));
      h.expect((await resultOf(source, 'set', { v })).isError).toBe(false);
      const result = await resultOf(source, 'set', { v: [...v, { tag: 'same', i: 7 }] });
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
      h.expect(String(result.output)).toContain('uniqueItems: must not repeat items: items 7 and 20000 are equal');
      h.expect(calls.length).toBe(1);
    });

    h.it('arguments nested 10,000 deep are refused, not overflowed', async () => {
      const { server, calls } = scriptedServer([[{ name: 'open', inputSchema: obj({}, { additionalProperties: { $ref: '#' } }) }]], () => ({ content: [] }));
      await using source = inprocess(server);
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 10_000; i += 1) deep = { a: deep };
      const result = await resultOf(source, 'open', deep);
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input' });
      h.expect(String(result.output)).toContain('deeper than');
      h.expect(calls).toEqual([]);
    });

    h.it('an unknown tool name is an invalid_input result, not a throw', async () => {
      const { server } = scriptedServer([[{ name: 'note', inputSchema: strict }]], () => ({ content: [] }));
      await using source = inprocess(server);
      const result = await resultOf(source, 'nope', {});
      h.expect(result).toMatchObject({ isError: true, reason: 'invalid_input', toolName: 'nope' });
      h.expect(String(result.output)).toContain('note');
    });
  });

  h.describe('structured output', () => {
    const answers: Answer = (name, args) => {
      const id = (args as { id?: unknown }).id;
      if (name.startsWith('good')) return { content: [{ type: 'text', text: '{}' }], structuredContent: { id: 1, title: 'a' } };
      if (name.startsWith('wrong')) return { content: [], structuredContent: { id: 'one', title: 'a' } };
      if (name.startsWith('missing')) return { content: [{ type: 'text', text: 'no structure' }] };
      if (name.startsWith('failing')) return { isError: true, content: [{ type: 'text', text: `boom ${String(id)}` }] };
      return { content: [] };
    };
    const page = (suffix: string): Tool[] =>
      ['good', 'wrong', 'missing', 'failing'].map((kind) => ({ name: `${kind}${suffix}`, inputSchema: obj({}), outputSchema: NOTE_OUT }));

    for (const suffix of ['_p1', '_p2', '_p3']) {
      h.it(`validates structuredContent for tools on every page (${suffix})`, async () => {
        const { server } = scriptedServer([page('_p1'), page('_p2'), page('_p3')], answers);
        await using source = inprocess(server);
        h.expect(await resultOf(source, `good${suffix}`, {})).toMatchObject({ isError: false, output: { id: 1, title: 'a' } });
        const wrong = await resultOf(source, `wrong${suffix}`, {});
        h.expect(wrong).toMatchObject({ isError: true, reason: 'invalid_output' });
        h.expect(String(wrong.output)).toContain('/id');
        h.expect(await resultOf(source, `missing${suffix}`, {})).toMatchObject({ isError: true, reason: 'invalid_output' });
        h.expect(await resultOf(source, `failing${suffix}`, { id: 7 })).toMatchObject({ isError: true, reason: 'server_error', output: 'boom 7' });
      });
    }

    h.it('native tools get the same output check', async () => {
      const native = tool({ name: 'native', description: 'n', parameters: { type: 'object' }, outputSchema: NOTE_OUT, execute: () => ({ id: 'x' }) });
      h.expect(await resultOf(native, 'native', {})).toMatchObject({ isError: true, reason: 'invalid_output' });
    });
  });

  h.describe('result mapping through dispatchTool', () => {
    h.it('unknown future content types are kept as typed parts, in order', async () => {
      const blocks = [{ type: 'text', text: 'a' }, { type: 'hologram', frames: 3 }, { type: 'text', text: 'b' }];
      // The SDK's own server refuses to send unknown types, so this one speaks JSON-RPC by hand.
      const server = rawServer((method) =>
        method === 'tools/list' ? { tools: [{ name: 'future', inputSchema: { type: 'object' } }] } : { content: blocks },
      );
      await using source = mcp({ transport: 'inprocess', server });
      h.expect(await resultOf(source, 'future', {})).toMatchObject({ isError: false, output: blocks });
    });

    h.it('a JSON-RPC error from the server is server_error naming the code', async () => {
      const { server } = scriptedServer([[{ name: 'rpc', inputSchema: obj({}) }]], () => {
        throw new McpError(-32602, 'bad params from the server');
      });
      await using source = inprocess(server);
      const result = await resultOf(source, 'rpc', {});
      h.expect(result).toMatchObject({ isError: true, reason: 'server_error' });
      // The library's own wording: the SDK's message repeats the code too, so '-32602' alone proves nothing.
      h.expect(String(result.output)).toContain('JSON-RPC error -32602');
    });

    h.it('a call aborted by the host is unavailable, one past its deadline is timeout; never a throw', async () => {
      const { server } = scriptedServer([[{ name: 'slow', inputSchema: obj({}) }]], () => new Promise(() => undefined));
      await using source = inprocess(server);
      const toolset = await resolveToolset([source]);
      const controller = new AbortController();
      const pending = dispatchTool(toolset, { id: 'a1', name: 'slow', input: {} }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      h.expect(await pending).toMatchObject({ status: 'done', result: { isError: true, reason: 'unavailable' } });
      const timed = await dispatchTool(toolset, { id: 'a2', name: 'slow', input: {} }, { signal: AbortSignal.timeout(30) });
      h.expect(timed).toMatchObject({ status: 'done', result: { isError: true, reason: 'timeout' } });
    });

    h.it('a native tool that throws is an execution error result', async () => {
      const failing = tool({ name: 'boom', description: '', parameters: { type: 'object' }, execute: () => { throw new Error('kaput'); } });
      h.expect(await resultOf(failing, 'boom', {})).toMatchObject({ isError: true, reason: 'execution', output: 'kaput' });
    });
  });
}
