/**
 * Unit tests for what the MCP client makes of a server's answers before anyone reads them:
 * src/core/mcp/answer-shape.ts (answers the SDK would drop, settled at once as protocol
 * errors), src/core/mcp/call-result-schema.ts (the lenient tools/call result check) and
 * src/core/mcp/results.ts (the canonical tool result). The suites reach these through whole
 * sources, one malformed answer at a time; here each rule meets its edge directly, so a
 * mutant of any one of them fails a case that names it.
 */
import { describe, expect, it } from 'vitest';
import { answerDefect, answeredId, markedAnswer, markedDefect } from '../../src/core/mcp/answer-shape.js';
import { isCallToolResult, LenientCallToolResultSchema } from '../../src/core/mcp/call-result-schema.js';
import { mapCallResult, mapContent } from '../../src/core/mcp/results.js';
import { isToolError } from '../../src/core/tools/tool-error.js';
import { MAX_SERVER_TEXT_CHARS } from '../../src/core/errors.js';

/** An object whose every read throws, as a hostile in-process server can hand over. */
const throwing = new Proxy({}, { get: () => { throw new Error('read'); }, has: () => { throw new Error('has'); }, ownKeys: () => { throw new Error('keys'); } });

describe('answeredId: the request a message answers', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 7, result: {} }, 7],
    [{ jsonrpc: '2.0', id: 'a', error: { code: 1, message: 'm' } }, 'a'],
    [{ id: 0, result: null }, 0],
    [{ id: 1.5, result: {} }, 1.5],
  ])('%j answers %j', (message, id) => {
    expect(answeredId(message)).toBe(id);
  });

  it.each([
    ['a request (no result, no error)', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    ['a non-finite id', { id: Number.POSITIVE_INFINITY, result: {} }],
    ['NaN', { id: Number.NaN, result: {} }],
    ['an object id', { id: {}, result: {} }],
    ['no id', { result: {} }],
    ['an array', [{ id: 1, result: {} }]],
    ['null', null],
    ['a string', 'answer'],
    ['a throwing object', throwing],
  ])('%s answers nothing', (_name, message) => {
    expect(answeredId(message)).toBeUndefined();
  });
});

describe('answerDefect: what the SDK would not accept', () => {
  const ok = { jsonrpc: '2.0', id: 1, result: {} };

  it('a well-formed result or error response has none', () => {
    expect(answerDefect(ok)).toBeUndefined();
    expect(answerDefect({ jsonrpc: '2.0', id: 'x', result: { _meta: { a: 1 }, tools: [] } })).toBeUndefined();
    expect(answerDefect({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no such method' } })).toBeUndefined();
    expect(answerDefect({ jsonrpc: '2.0', id: 2, error: { code: 1, message: 'm', data: { any: 'thing' } } })).toBeUndefined();
  });

  it.each([
    [{ ...ok, jsonrpc: '1.0' }, 'an answer whose jsonrpc is not "2.0"'],
    [{ id: 1, result: {}, extra: 1 }, 'an answer whose jsonrpc is not "2.0"'],
    [{ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }, 'an answer holding both a result and an error'],
    [{ ...ok, extra: true }, 'an answer with members JSON-RPC does not define'],
    [{ jsonrpc: '2.0', result: {} }, 'an answer with members JSON-RPC does not define'],
    [{ jsonrpc: '2.0', id: 1.5, result: {} }, 'an answer whose id is neither a string nor an integer'],
    [{ jsonrpc: '2.0', id: null, result: {} }, 'an answer whose id is neither a string nor an integer'],
    [{ jsonrpc: '2.0', id: 2 ** 53, result: {} }, 'an answer whose id is neither a string nor an integer'],
    [{ jsonrpc: '2.0', id: 1, result: null }, 'a result that is null, not an object'],
    [{ jsonrpc: '2.0', id: 1, result: [1] }, 'a result that is an array, not an object'],
    [{ jsonrpc: '2.0', id: 1, result: 'text' }, 'a result that is a string, not an object'],
    [{ jsonrpc: '2.0', id: 1, result: 3 }, 'a result that is a number, not an object'],
    [{ jsonrpc: '2.0', id: 1, result: { _meta: 'not an object' } }, 'a result whose _meta is not valid MCP'],
    [{ jsonrpc: '2.0', id: 1, error: null }, 'an error that is null, not an object'],
    [{ jsonrpc: '2.0', id: 1, error: ['x'] }, 'an error that is an array, not an object'],
    [{ jsonrpc: '2.0', id: 1, error: 'bad' }, 'an error that is a string, not an object'],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } }, 'an error without an integer code and a string message'],
    [{ jsonrpc: '2.0', id: 1, error: { code: '1', message: 'm' } }, 'an error without an integer code and a string message'],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1, message: 2 } }, 'an error without an integer code and a string message'],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, 'an error without an integer code and a string message'],
  ])('%j is %s', (message, defect) => {
    expect(answerDefect(message as Record<string, unknown>)).toBe(defect);
  });

  it('an answer that throws when read is one that cannot be read', () => {
    expect(answerDefect(throwing as Record<string, unknown>)).toBe('an answer that cannot be read');
  });
});

describe('markedAnswer and markedDefect: a malformed answer handed on in its place', () => {
  it('an answer with a defect becomes an InvalidRequest error for the same id, marked', () => {
    const marked = markedAnswer({ jsonrpc: '2.0', id: 'q', result: [] });
    expect(marked).toEqual({
      jsonrpc: '2.0',
      id: 'q',
      error: { code: -32600, message: 'a result that is an array, not an object', data: { 'rulvar.malformedAnswer': true } },
    });
    expect(markedDefect(marked!.error)).toBe('a result that is an array, not an object');
  });

  it('a well-formed answer and a message that answers nothing are not marked', () => {
    expect(markedAnswer({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(markedAnswer({ jsonrpc: '2.0', id: 1, method: 'x' })).toBeUndefined();
    expect(markedAnswer({ jsonrpc: '2.0', id: 1.5, result: {} })).toEqual(expect.objectContaining({ id: 1.5 }));
  });

  it('an error without the mark stands for no defect, whatever its data', () => {
    expect(markedDefect({ message: 'm' })).toBeUndefined();
    expect(markedDefect({ message: 'm', data: { 'rulvar.malformedAnswer': 'yes' } })).toBeUndefined();
    expect(markedDefect({ message: 'm', data: [true] })).toBeUndefined();
    expect(markedDefect({ message: 'm', data: null })).toBeUndefined();
  });
});

describe('isCallToolResult: the lenient tools/call result', () => {
  it.each([
    ['an empty object', {}],
    ['text content', { content: [{ type: 'text', text: 'hi' }] }],
    ['a block of a type never heard of', { content: [{ type: 'hologram', depth: 3 }] }],
    ['structured content', { structuredContent: { a: 1 } }],
    ['structured content with no prototype', { structuredContent: Object.create(null) as object }],
    ['isError false', { isError: false, content: [] }],
    ['isError true', { isError: true }],
    ['members it does not know', { content: [], _meta: { x: 1 }, other: 'kept' }],
  ])('%s is a result', (_name, value) => {
    expect(isCallToolResult(value)).toBe(true);
    expect(LenientCallToolResultSchema.safeParse(value).success).toBe(true);
  });

  it.each([
    ['null', null],
    ['an array', [{ type: 'text', text: 'x' }]],
    ['a string', 'done'],
    ['isError as a string', { isError: 'true' }],
    ['isError as null', { isError: null }],
    ['structured content as an array', { structuredContent: [1] }],
    ['structured content as null', { structuredContent: null }],
    ['structured content as a Map', { structuredContent: new Map() }],
    ['structured content as a class instance', { structuredContent: new (class Box {})() }],
    ['content as an object', { content: { type: 'text', text: 'x' } }],
    ['content as a string', { content: 'x' }],
    ['a block that is null', { content: [null] }],
    ['a block that is an array', { content: [['text']] }],
    ['a block without a type', { content: [{ text: 'x' }] }],
    ['a block whose type is a number', { content: [{ type: 1 }] }],
    ['a bad block after a good one', { content: [{ type: 'text', text: 'a' }, { type: 2 }] }],
  ])('%s is refused, naming what a result needs', (_name, value) => {
    expect(isCallToolResult(value)).toBe(false);
    const parsed = LenientCallToolResultSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/^not a tools\/call result: needs an object with an optional content array/);
  });
});

describe('mapCallResult: the canonical tool result', () => {
  it('structured content wins over content, copied at the top level with __proto__ kept as a key', () => {
    const structured = JSON.parse('{"a":{"deep":1},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const mapped = mapCallResult({ content: [{ type: 'text', text: 'ignored' }], structuredContent: structured }, false) as Record<string, unknown>;
    expect(mapped).not.toBe(structured);
    expect(mapped).toEqual(structured);
    expect(Object.keys(mapped)).toEqual(['a', '__proto__']);
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(mapped['a']).toBe(structured['a']); // one level is copied, not the whole tree
    structured['b'] = 2;
    expect(mapped).not.toHaveProperty('b');
  });

  it('an outputSchema with no structured content is an invalid_output error; without one, content maps', () => {
    const missing = mapCallResult({ content: [{ type: 'text', text: 'x' }] }, true);
    expect(isToolError(missing) && [missing.reason, missing.message]).toEqual([
      'invalid_output',
      'the tool declares an outputSchema but returned no structuredContent',
    ]);
    expect(mapCallResult({ content: [{ type: 'text', text: 'x' }] }, false)).toBe('x');
    expect(mapCallResult({ structuredContent: { n: 1 } }, true)).toEqual({ n: 1 });
  });

  it('absent content is the empty string; isError false maps like no flag', () => {
    expect(mapCallResult({}, false)).toBe('');
    expect(mapCallResult({ isError: false, content: [{ type: 'text', text: 'ok' }] }, false)).toBe('ok');
  });

  it("an error keeps the server's own text, joined and cut to the bound", () => {
    const error = mapCallResult({ isError: true, structuredContent: { x: 1 }, content: [{ type: 'text', text: 'disk ' }, { type: 'image', data: 'AA' }, { type: 'text', text: 'full' }] }, true);
    expect(isToolError(error) && [error.reason, error.message]).toEqual(['server_error', 'disk full']);
    const long = 'e'.repeat(MAX_SERVER_TEXT_CHARS + 1);
    const cut = mapCallResult({ isError: true, content: [{ type: 'text', text: long }] }, false);
    expect(isToolError(cut) && cut.message).toBe(`${'e'.repeat(MAX_SERVER_TEXT_CHARS)}… (cut: ${MAX_SERVER_TEXT_CHARS + 1} characters in all)`);
    const exact = mapCallResult({ isError: true, content: [{ type: 'text', text: long.slice(1) }] }, false);
    expect(isToolError(exact) && exact.message).toBe(long.slice(1));
  });

  it('an error with no text names the kinds of content it had, or says only that it failed', () => {
    const kinds = mapCallResult({ isError: true, content: [{ type: 'image', data: 'AA' }, { type: 'audio', data: 'BB' }] }, false);
    expect(isToolError(kinds) && kinds.message).toBe('the tool reported an error (content: image, audio)');
    const bare = mapCallResult({ isError: true }, false);
    expect(isToolError(bare) && bare.message).toBe('the tool reported an error');
    const emptyText = mapCallResult({ isError: true, content: [{ type: 'text', text: '' }] }, false);
    expect(isToolError(emptyText) && emptyText.message).toBe('the tool reported an error (content: text)');
    const textNotString = mapCallResult({ isError: true, content: [{ type: 'text', text: 5 }] }, false);
    expect(isToolError(textNotString) && textNotString.message).toBe('the tool reported an error (content: text)');
  });
});

describe('mapContent: text as one string, a mix as parts in order', () => {
  it('all-text content is its texts joined as they are; no blocks is the empty string', () => {
    expect(mapContent([{ type: 'text', text: 'a ' }, { type: 'text', text: 'b' }])).toBe('a b');
    expect(mapContent([])).toBe('');
  });

  it('a mix keeps text parts as text and every other block as its own copy, in order', () => {
    const image = { type: 'image', data: 'AA', mimeType: 'image/png' };
    const unknown = { type: 'hologram', depth: 3 };
    const parts = mapContent([{ type: 'text', text: 'see', annotations: { a: 1 } }, image, unknown]);
    expect(parts).toEqual([{ type: 'text', text: 'see' }, image, unknown]);
    expect(Array.isArray(parts) && parts[1]).not.toBe(image);
  });

  it('a text block whose text is not a string is a part of its own, not text', () => {
    const odd = { type: 'text', text: 7 };
    expect(mapContent([{ type: 'text', text: 'a' }, odd])).toEqual([{ type: 'text', text: 'a' }, odd]);
  });
});
