/**
 * Unit tests for the MCP client's own bounds and names, each at its exact edge:
 * src/core/mcp/body-limit.ts (bytes per HTTP response, or per SSE event, at every line-end
 * form), src/core/mcp/schema-bounds.ts (a tool's schema nesting and size under
 * maxSchemaBytes), src/core/mcp/source-id.ts (a default id that never carries a secret) and
 * src/core/mcp/caller-signal.ts. The suites check these with megabytes through whole
 * sources; bounds of a few bytes here make an off-by-one visible.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { limitResponse, MAX_MESSAGE_BYTES } from '../../src/core/mcp/body-limit.js';
import { CALLER_SIGNAL, callerSignal } from '../../src/core/mcp/caller-signal.js';
import { assertSchemaBounds } from '../../src/core/mcp/schema-bounds.js';
import { defaultSourceId } from '../../src/core/mcp/source-id.js';
import type { McpConfig } from '../../src/core/mcp/config-types.js';
import type { ToolContext } from '../../src/core/tools/types.js';
import { MAX_SCHEMA_DEPTH } from '../../src/core/schema/limits.js';

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };
const JSON_TYPE = { 'content-type': 'application/json' };

/** Reads a limited response whose body arrives in the given chunks; the overflow it heard. */
async function readLimited(chunks: readonly string[], headers: Record<string, string>, maxBytes: number) {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const heard: Error[] = [];
  const limited = limitResponse(new Response(body, { status: 201, statusText: 'Made', headers }), (error) => heard.push(error), maxBytes);
  try {
    return { text: await limited.text(), heard, limited };
  } catch (error) {
    return { failed: error as Error, heard, limited };
  }
}

describe('limitResponse: a JSON body', () => {
  it('a body of exactly the cap passes whole, in any chunking, with status and headers kept', async () => {
    const read = await readLimited(['{"a"', ':1}'], JSON_TYPE, 7);
    expect(read.text).toBe('{"a":1}');
    expect(read.heard).toEqual([]);
    expect([read.limited.status, read.limited.statusText, read.limited.headers.get('content-type')]).toEqual([201, 'Made', 'application/json']);
  });

  it('one byte past the cap errors the body and is heard once, naming the cap', async () => {
    const read = await readLimited(['{"a"', ':12}'], JSON_TYPE, 7);
    expect(read.failed?.message).toBe('the server sent more than 7 bytes in one response');
    expect(read.heard.map((error) => error.message)).toEqual(['the server sent more than 7 bytes in one response']);
  });

  it('line ends do not reset a JSON body: a body counts whole', async () => {
    const read = await readLimited(['ab\n\n', 'cd\n\n'], JSON_TYPE, 7);
    expect(read.failed?.message).toBe('the server sent more than 7 bytes in one response');
  });

  it('a response without a body is handed back as it is; the default cap is 10 MB', () => {
    const empty = new Response(null, { status: 204 });
    expect(limitResponse(empty, () => {})).toBe(empty);
    expect(MAX_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe('limitResponse: an SSE stream, bounded per event', () => {
  const event = 'data: 1234\n'; // 11 bytes; an event is it plus its blank line
  const LINE_ENDS = [
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ] as const;

  it.each(LINE_ENDS)('events ended by %s each start the count again', async (_name, end) => {
    const line = event.replace('\n', end);
    const stream = Array.from({ length: 20 }, () => `${line}${end}`);
    const read = await readLimited(stream, SSE, line.length + end.length);
    expect(read.heard).toEqual([]);
    expect(read.text).toBe(stream.join(''));
  });

  it.each(LINE_ENDS)('one event a byte past the cap fails, ended by %s', async (_name, end) => {
    const line = event.replace('\n', end);
    const read = await readLimited([`${line}${end}`, `x${line}${end}`], SSE, line.length + end.length);
    expect(read.failed?.message).toBe(`the server sent more than ${line.length + end.length} bytes in one event`);
    expect(read.heard).toHaveLength(1);
  });

  it('a single line end is no event end: lines of one event add up', async () => {
    // Three 5-byte lines with single LFs are one 15-byte event.
    expect((await readLimited(['abcd\n', 'efgh\n', 'ijkl\n'], SSE, 14)).failed?.message).toBe('the server sent more than 14 bytes in one event');
    expect((await readLimited(['abcd\n', 'efgh\n', 'ijkl\n'], SSE, 15)).heard).toEqual([]);
  });

  it('a CRLF is one line end, so CRLF CRLF ends an event and CRLF alone does not', async () => {
    // "ab\r\n" twice is one 8-byte event (a CRLF, then letters); a blank CRLF line ends it.
    expect((await readLimited(['ab\r\nab\r\n', 'cd'], SSE, 9)).failed?.message).toBe('the server sent more than 9 bytes in one event');
    // The blank line's CR ends the event; its LF is counted with the next one (a byte stricter).
    expect((await readLimited(['ab\r\n\r\n', 'cdefg'], SSE, 6)).heard).toEqual([]);
    expect((await readLimited(['ab\r\n\r\n', 'cdefgh'], SSE, 6)).heard).toHaveLength(1);
  });

  it('a line end split across chunks still counts once, and the blank line after it ends the event', async () => {
    expect((await readLimited(['abc\r', '\n', '\r', '\nabcdef'], SSE, 7)).heard).toEqual([]);
    expect((await readLimited(['abc\r', '\n', 'abcdef'], SSE, 7)).failed?.message).toBe('the server sent more than 7 bytes in one event');
  });

  it('LF CR is two line ends (a blank line), not a CRLF; so is CRLF LF', async () => {
    expect((await readLimited(['abc\n\r', 'abcdef'], SSE, 6)).heard).toEqual([]);
    expect((await readLimited(['ab\r\n\n', 'cdefgh'], SSE, 6)).heard).toEqual([]);
    expect((await readLimited(['ab\r\n\n', 'cdefghi'], SSE, 6)).heard).toHaveLength(1);
  });

  it('a line end after the blank line starts the next event: it is counted there', async () => {
    expect((await readLimited(['x\n\n', '\nabcde'], SSE, 6)).heard).toEqual([]);
    expect((await readLimited(['x\n\n', '\nabcdef'], SSE, 6)).heard).toHaveLength(1);
  });
});

const tool = (inputSchema: unknown, outputSchema?: unknown): Tool =>
  ({ name: 'deep', inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }) }) as Tool;

/** An object schema nested `levels` deep (the root object is level 1). */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'object' };
  for (let level = 1; level < levels; level += 1) schema = { type: 'object', properties: { p: schema } };
  return schema;
}

describe('assertSchemaBounds', () => {
  it('without maxSchemaBytes nothing is measured, however deep or large', () => {
    expect(() => assertSchemaBounds(tool(nested(MAX_SCHEMA_DEPTH * 3)), 'src', undefined)).not.toThrow();
  });

  it('nesting is refused past the depth limit, for input and output schemas, naming the tool', () => {
    // nested(n) has 2n - 1 levels of objects: each level is a schema inside a properties map.
    const atLimit = nested(MAX_SCHEMA_DEPTH / 2); // 99 levels
    expect(() => assertSchemaBounds(tool(atLimit), 'src', 1e9)).not.toThrow();
    expect(() => assertSchemaBounds(tool({ type: 'object', x: atLimit }), 'src', 1e9)).not.toThrow(); // 100
    const past = { type: 'object', properties: { p: atLimit } };
    expect(() => assertSchemaBounds(tool(past), 'src', 1e9)).toThrow(
      expect.objectContaining({ code: 'schema.unsupported', message: `src: tool "deep" inputSchema at (root): nests deeper than ${MAX_SCHEMA_DEPTH} levels` }),
    );
    expect(() => assertSchemaBounds(tool({ type: 'object' }, past), 'src', 1e9)).toThrow(/outputSchema at \(root\): nests deeper/);
  });

  it('arrays count as levels; a cyclic schema from an in-process server is refused, not looped', () => {
    let array: unknown = [];
    for (let level = 1; level < MAX_SCHEMA_DEPTH; level += 1) array = [array];
    expect(() => assertSchemaBounds(tool({ type: 'object', x: array }), 'src', 1e12)).toThrow(/nests deeper/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['self'] = cyclic;
    expect(() => assertSchemaBounds(tool(cyclic), 'src', 1e12)).toThrow(/nests deeper/);
  });

  it('a shared subobject reached at two depths is walked again from the deeper one', () => {
    // The shared chain is reached first shallow (level 2) and then deep enough to pass the limit.
    const shared = nested(MAX_SCHEMA_DEPTH / 2 - 1);
    let deep: Record<string, unknown> = { s: shared };
    for (let level = 0; level < 5; level += 1) deep = { d: deep };
    expect(() => assertSchemaBounds(tool({ a: shared, b: deep }), 'src', 1e12)).toThrow(/nests deeper/);
    expect(() => assertSchemaBounds(tool({ b: deep, a: shared }), 'src', 1e12)).toThrow(/nests deeper/);
    expect(() => assertSchemaBounds(tool({ a: shared, b: { s: shared } }), 'src', 1e12)).not.toThrow();
  });

  it('size is the bytes of both schemas, refused one byte past maxSchemaBytes', () => {
    const input = { type: 'object' }; // 17 bytes
    const output = { type: 'string' }; // 17 bytes
    expect(JSON.stringify(input).length + JSON.stringify(output).length).toBe(34);
    expect(() => assertSchemaBounds(tool(input, output), 'src', 34)).not.toThrow();
    expect(() => assertSchemaBounds(tool(input, output), 'src', 33)).toThrow(
      expect.objectContaining({ code: 'schema.too_large', message: 'src: tool "deep" has 34 bytes of schema, past maxSchemaBytes = 33' }),
    );
  });

  it('a schema of exactly the message cap is measured exactly; past it, only up to the cap', () => {
    const exact = { type: 'object', d: 'x'.repeat(MAX_MESSAGE_BYTES - '{"type":"object","d":""}'.length) };
    expect(() => assertSchemaBounds(tool(exact), 'src', 100)).toThrow(
      `src: tool "deep" has ${MAX_MESSAGE_BYTES} bytes of schema, past maxSchemaBytes = 100`,
    );
  });

  it('a graph that serializes past every message cap is measured only up to the cap', () => {
    // 2^30 paths through shared arrays: far past 10 MB serialized, counted only that far.
    let graph: unknown = 'x';
    for (let level = 0; level < 30; level += 1) graph = [graph, graph];
    expect(() => assertSchemaBounds(tool({ type: 'object', g: graph }), 'src', 100)).toThrow(
      `src: tool "deep" has more than ${MAX_MESSAGE_BYTES} bytes of schema, past maxSchemaBytes = 100`,
    );
  });
});

describe('defaultSourceId: never a secret', () => {
  const http = (url: string, prefix?: string): McpConfig =>
    ({ transport: 'streamable-http', url, ...(prefix === undefined ? {} : { prefix }) }) as McpConfig;

  it('HTTP: the host and port only, never userinfo, path or query', () => {
    expect(defaultSourceId(http('https://user:hunter2@mcp.example.com:8443/t/sk-secret?key=abc#frag'))).toBe('mcp:http:mcp.example.com:8443');
    expect(defaultSourceId(http('https://mcp.example.com/'))).toBe('mcp:http:mcp.example.com');
    expect(defaultSourceId({ transport: 'streamable-http', url: new URL('http://127.0.0.1:9/x') } as McpConfig)).toBe('mcp:http:127.0.0.1:9');
  });

  it('stdio: the command name alone, after the last / or \\', () => {
    expect(defaultSourceId({ transport: 'stdio', command: '/usr/local/bin/server --token=x' } as McpConfig)).toBe('mcp:stdio:server --token=x');
    expect(defaultSourceId({ transport: 'stdio', command: 'C:\\tools\\mcp.exe' } as McpConfig)).toBe('mcp:stdio:mcp.exe');
    expect(defaultSourceId({ transport: 'stdio', command: 'npx' } as McpConfig)).toBe('mcp:stdio:npx');
  });

  it('a prefix scopes the id; in-process has no more to say', () => {
    expect(defaultSourceId(http('https://h.example/', 'gh'))).toBe('mcp:gh@http:h.example');
    expect(defaultSourceId({ transport: 'stdio', command: 'srv', prefix: 'fs' } as McpConfig)).toBe('mcp:fs@stdio:srv');
    expect(defaultSourceId({ transport: 'inprocess', prefix: 'mem' } as McpConfig)).toBe('mcp:mem@inprocess');
    expect(defaultSourceId({ transport: 'inprocess' } as McpConfig)).toBe('mcp:inprocess');
  });
});

describe('callerSignal', () => {
  it("reads the caller's signal from the mark without touching ctx.signal, undefined included", () => {
    const signal = new AbortController().signal;
    const marked = (value: AbortSignal | undefined): ToolContext =>
      Object.defineProperty({ [CALLER_SIGNAL]: value }, 'signal', {
        get(): never {
          throw new Error('ctx.signal read');
        },
      }) as unknown as ToolContext;
    expect(callerSignal(marked(signal))).toBe(signal);
    expect(callerSignal(marked(undefined))).toBeUndefined();
  });

  it('any other context is read through ctx.signal; the mark is a registered symbol', () => {
    const signal = new AbortController().signal;
    expect(callerSignal({ signal } as unknown as ToolContext)).toBe(signal);
    expect(CALLER_SIGNAL).toBe(Symbol.for('rulvar.callerSignal'));
  });
});
