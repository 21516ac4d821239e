/**
 * Unit tests of the SSE parser (src/adapters/sse.ts) against the WHATWG rules it claims: every
 * line ending, split across chunks anywhere (one byte at a time included); a BOM dropped only
 * first in the stream; comments, fields without a colon, one leading space dropped; `data`
 * lines joined, an event named or `message`, id and retry ignored; an event past
 * maxEventBytes refused at its first byte over, not before; bytes that are not UTF-8 refused.
 * The adapter suites reach it only through whole provider streams written one way.
 */
import { describe, expect, it } from 'vitest';
import { SseParser, SseRefusal, parsedObject, type SseEvent } from '../../src/adapters/sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);
/** Every event `chunks` give, fed in that order to one parser. */
const events = (chunks: (string | Uint8Array)[], max = 1_000): SseEvent[] => {
  const parser = new SseParser(max);
  return chunks.flatMap((c) => parser.push(typeof c === 'string' ? bytes(c) : c));
};
/** The same text fed whole, byte by byte, and split at every position: all must agree. */
function everySplit(text: string): SseEvent[] {
  const whole = events([text]);
  const all = bytes(text);
  expect(events([...all].map((b) => Uint8Array.of(b)))).toEqual(whole);
  for (let cut = 1; cut < all.length; cut += 1) expect(events([all.subarray(0, cut), all.subarray(cut)])).toEqual(whole);
  return whole;
}
const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    if (error instanceof SseRefusal) return `${error.reason}: ${error.message}`;
    throw error;
  }
  return 'none';
};

describe('SseParser: lines and fields', () => {
  it('LF, CRLF and CR all end a line, wherever the chunks split; a blank line dispatches', () => {
    for (const end of ['\n', '\r\n', '\r']) {
      expect(everySplit(`data: a${end}data: b${end}${end}event: e${end}data: c${end}${end}`)).toEqual([
        { event: 'message', data: 'a\nb' },
        { event: 'e', data: 'c' },
      ]);
    }
    expect(everySplit('data: x\r\r\n\ndata: y\n\n')).toEqual([{ event: 'message', data: 'x' }, { event: 'message', data: 'y' }]);
  });

  it('a CR at the end of one chunk and an LF first in the next are one line end, not two', () => {
    expect(events(['data: a\r', '\ndata: b\n\n'])).toEqual([{ event: 'message', data: 'a\nb' }]);
    expect(events(['data: a\r', 'data: b\n\n'])).toEqual([{ event: 'message', data: 'a\nb' }]);
    expect(events(['data: a\r', '\n', '\n'])).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('a BOM is dropped first in the stream only; a comment is skipped; one leading space is dropped', () => {
    expect(events(['\uFEFFdata: a\n\n'])).toEqual([{ event: 'message', data: 'a' }]);
    expect(events(['data: a\n\n', '\uFEFFdata: b\n\n'])).toEqual([{ event: 'message', data: 'a' }]);
    expect(everySplit(': keep-alive\ndata:  two spaces\ndata:none\n\n')).toEqual([{ event: 'message', data: ' two spaces\nnone' }]);
    expect(everySplit('data\ndata: x\n\n')).toEqual([{ event: 'message', data: '\nx' }]);
    expect(everySplit('event\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
    expect(everySplit('data: a:b\n\n')).toEqual([{ event: 'message', data: 'a:b' }]);
  });

  it('id, retry and unknown fields are ignored; an event without data is not dispatched and its type is forgotten', () => {
    expect(everySplit('id: 7\nretry: 10\nfoo: bar\ndata: x\n\nevent: lonely\n\ndata: y\n\n')).toEqual([
      { event: 'message', data: 'x' },
      { event: 'message', data: 'y' },
    ]);
  });

  it('an event cut off by the end of the stream is not dispatched', () => {
    expect(events(['data: a\n\ndata: b\n'])).toEqual([{ event: 'message', data: 'a' }]);
    expect(events(['data: a'])).toEqual([]);
  });
});

describe('SseParser: bounds and bytes', () => {
  it('an event may hold maxEventBytes, earlier line ends and comments counted, and is refused at the first byte past it', () => {
    // "data: abcd" is 10 bytes; its line end counts once another line of the event starts.
    expect(events(['data: abcd\n\n'], 10)).toEqual([{ event: 'message', data: 'abcd' }]);
    expect(refusal(() => events(['data: abcde\n\n'], 10))).toBe('too_large: an event past maxEventBytes');
    expect(refusal(() => events(['data: ab', 'cde', '\n'], 10))).toBe('too_large: an event past maxEventBytes');
    // ": 1234567" and its LF are 10 bytes, "data: x" 7 more.
    expect(events([': 1234567\ndata: x\n\n'], 17)).toEqual([{ event: 'message', data: 'x' }]);
    expect(refusal(() => events([': 1234567\ndata: x\n\n'], 16))).toBe('too_large: an event past maxEventBytes');
    // The count starts again with each event.
    expect(events(['data: abcd\n\ndata: efgh\n\n'], 10)).toHaveLength(2);
  });

  it('bytes that are not UTF-8 are refused, a sequence split across chunks is not', () => {
    expect(refusal(() => events([Uint8Array.of(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a)]))).toBe('undecodable: bytes that are not UTF-8');
    const euro = bytes('data: €\n\n');
    expect(events([euro.subarray(0, 7), euro.subarray(7)])).toEqual([{ event: 'message', data: '€' }]);
  });

  it('keeps its own copy of a chunk the reader reuses', () => {
    const parser = new SseParser(100);
    const buffer = bytes('data: ab');
    parser.push(buffer);
    buffer.fill(0x7a);
    expect(parser.push(bytes('\n\n'))).toEqual([{ event: 'message', data: 'ab' }]);
  });
});

describe('parsedObject', () => {
  it('is the object or array a JSON text holds, and undefined for anything else', () => {
    expect(parsedObject('{"a":1}')).toEqual({ a: 1 });
    expect(parsedObject('[1]')).toEqual([1]);
    for (const text of ['null', '1', '"s"', 'nope', '']) expect(parsedObject(text)).toBeUndefined();
  });
});
