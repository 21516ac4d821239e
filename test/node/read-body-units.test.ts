/**
 * Unit tests of src/adapters/read-body.ts, with bounds of a few bytes where the suites use
 * megabytes (which the mutation run skips): a declared content-length past the bound refused
 * unread and the body released; a counted body refused at its first byte past the bound, not
 * at the bound; strict UTF-8 to the last byte (a sequence cut off at the end included); an
 * error body cut exactly at 64 KiB, decoded leniently; an abort that ends a stalled read.
 */
import { describe, expect, it } from 'vitest';
import { declaredLength, readBody, readErrorBody } from '../../src/adapters/read-body.js';

const live = () => new AbortController().signal;
const encode = (text: string) => new TextEncoder().encode(text);

/** A response whose body is `chunks`, in that order; `cancelled()` says whether it was released. */
function answer(chunks: Uint8Array[], headers: Record<string, string> = {}, endless = false) {
  let cancelled = false;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next];
      next += 1;
      if (chunk !== undefined) controller.enqueue(chunk);
      else if (!endless) controller.close();
      else return new Promise<void>(() => undefined);
      return undefined;
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers }), cancelled: () => cancelled, pulled: () => next };
}

describe('declaredLength', () => {
  it('is a plain decimal count, and nothing else', () => {
    const of = (value?: string) => declaredLength(new Headers(value === undefined ? {} : { 'content-length': value }));
    expect([of('10'), of('0'), of(' 10 '), of('007')]).toEqual([10, 0, 10, 7]);
    for (const bad of ['1e3', '-1', '10a', 'a10', '1.5', '', undefined]) expect(of(bad)).toBeUndefined();
  });
});

describe('readBody', () => {
  it('a content-length past the bound is refused before a byte is read, and the body released', async () => {
    const { response, cancelled, pulled } = answer([encode('0123456789a')], { 'content-length': '11' });
    expect(await readBody(response, 10, live())).toEqual({ tooLarge: true, declared: 11 });
    await Promise.resolve();
    expect([cancelled(), pulled() <= 1]).toEqual([true, true]);
    expect(await readBody(answer([encode('0123456789')], { 'content-length': '10' }).response, 10, live())).toEqual({ text: '0123456789' });
  });

  it('counted, a body may hold the bound and is refused at the byte past it, whatever it declared', async () => {
    expect(await readBody(answer([encode('01234'), encode('56789')]).response, 10, live())).toEqual({ text: '0123456789' });
    const over = answer([encode('01234'), encode('567890'), encode('more')], { 'content-length': '3' });
    const read = await readBody(over.response, 10, live());
    expect(read).toEqual({ tooLarge: true });
    expect(Object.hasOwn(read, 'declared')).toBe(false);
    expect(over.cancelled()).toBe(true);
    expect(await readBody(new Response(null), 10, live())).toEqual({ text: '' });
  });

  it('must be UTF-8 to its last byte: a bad byte, or a sequence cut off at the end, is undecodable; one split across chunks is not', async () => {
    const euro = encode('€');
    expect(await readBody(answer([encode('ab'), euro.subarray(0, 2), euro.subarray(2)]).response, 100, live())).toEqual({ text: 'ab€' });
    expect(await readBody(answer([encode('ab'), euro.subarray(0, 2)]).response, 100, live())).toEqual({ undecodable: true });
    expect(await readBody(answer([Uint8Array.of(0x61, 0xff)]).response, 100, live())).toEqual({ undecodable: true });
  });

  it('an abort ends a read that stalls, with the stream released', async () => {
    const controller = new AbortController();
    const stalled = answer([encode('ab')], {}, true);
    const reading = readBody(stalled.response, 100, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await reading;
    expect(stalled.cancelled()).toBe(true);
  });
});

describe('readErrorBody', () => {
  it('is cut at exactly 64 KiB, in one chunk or several, and decoded leniently', async () => {
    expect(await readErrorBody(answer([encode('a'.repeat(70_000))]).response, live())).toBe('a'.repeat(65_536));
    expect(await readErrorBody(answer([encode('a'.repeat(60_000)), encode('b'.repeat(10_000))]).response, live())).toBe(`${'a'.repeat(60_000)}${'b'.repeat(5_536)}`);
    expect(await readErrorBody(answer([encode('a'.repeat(65_536))]).response, live())).toHaveLength(65_536);
    expect(await readErrorBody(answer([Uint8Array.of(0x6f, 0x6b, 0xff)]).response, live())).toBe('ok\uFFFD');
    expect(await readErrorBody(new Response(null), live())).toBe('');
  });
});
