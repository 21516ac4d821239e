/** The stdio transport's framing (src/node/line-framing.ts): lines whole, whatever the chunking, and a cap that ends a line too long. */
import { describe, expect, it } from 'vitest';
import { LineFraming } from '../../src/node/line-framing.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('stdio line framing', () => {
  it('gives each line once it ends, across chunks and several to a chunk, without LF or CRLF', () => {
    const framing = new LineFraming(1_000);
    expect(framing.push(bytes('{"a":'))).toEqual([]);
    expect(framing.push(bytes('1}\r\n{"b":2}\n\n{"c"'))).toEqual(['{"a":1}', '{"b":2}', '']);
    expect(framing.push(bytes(':3}\n'))).toEqual(['{"c":3}']);
    expect(framing.push(bytes('\n'))).toEqual(['']);
  });

  it('decodes a character split between two chunks', () => {
    const line = bytes('"é→😀"\n');
    const framing = new LineFraming(1_000);
    const lines: string[] = [];
    for (let i = 0; i < line.length; i += 1) lines.push(...framing.push(line.subarray(i, i + 1)));
    expect(lines).toEqual(['"é→😀"']);
  });

  it('takes a line of exactly the cap; one byte more throws and starts over clean', () => {
    const framing = new LineFraming(8);
    expect(framing.push(bytes('12345678\n'))).toEqual(['12345678']);
    expect(framing.push(bytes('1234'))).toEqual([]);
    expect(() => framing.push(bytes('56789'))).toThrow(/longer than the maximum size of 8 bytes/);
    expect(framing.push(bytes('ok\n'))).toEqual(['ok']);
    expect(() => framing.push(bytes('123456789\n'))).toThrow(/maximum size/);
  });

  it('clear() drops an unfinished line', () => {
    const framing = new LineFraming(100);
    framing.push(bytes('half'));
    framing.clear();
    expect(framing.push(bytes('whole\n'))).toEqual(['whole']);
  });
});
