/**
 * The SSE pass of src/core/mcp/sse-answers.ts on its own: events split at LF, CR and CRLF
 * wherever the chunks fall, every event but a malformed answer passed on byte for byte, and a
 * malformed answer replaced by its stand-in with its other fields kept.
 */
import { describe, expect, it } from 'vitest';
import { repairSseAnswers } from '../../src/core/mcp/sse-answers.js';

/** The body `chunks` make, through the pass, as text. */
async function through(chunks: readonly string[], contentType = 'text/event-stream'): Promise<string> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return repairSseAnswers(new Response(body, { headers: { 'content-type': contentType } })).text();
}

/** Every way of cutting `text` in two. */
const cuts = (text: string) => Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);

const GOOD = 'event: message\nid: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n';
const BAD = 'id: 8\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":2,"result":[]}\r\n\r\n';
const STAND_IN = 'data: {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"a result that is an array, not an object","data":{"rulvar.malformedAnswer":true}}}';

describe('SSE answers', () => {
  it('passes well-formed events, comments and other event types byte for byte, however cut', async () => {
    const stream = `: keep-alive\r\r${GOOD}event: other\ndata: [1]\n\nretry: 10\n\n`;
    for (const chunks of cuts(stream)) expect(await through(chunks)).toBe(stream);
  });

  it('replaces a malformed answer with its stand-in, keeping its id field, however cut', async () => {
    const stream = `${GOOD}${BAD}${GOOD}`;
    const want = `${GOOD}id: 8\n${STAND_IN}\n\n${GOOD}`;
    for (const chunks of cuts(stream)) expect(await through(chunks)).toBe(want);
  });

  it('leaves data that is no JSON, or no answer, as it came', async () => {
    const stream = 'data: not json\n\ndata: {"jsonrpc":"2.0","method":"x","params":[]}\n\ndata: [1,2]\n\n';
    expect(await through([stream])).toBe(stream);
  });

  it('does not look into an event of more than 256 lines: it passes as it came', async () => {
    const long = `${': pad\n'.repeat(256)}data: {"jsonrpc":"2.0","id":4,"result":[]}\n\n`;
    expect(await through([long])).toBe(long);
    const short = `${': pad\n'.repeat(255)}data: {"jsonrpc":"2.0","id":4,"result":[]}\n\n`;
    expect(await through([short])).toContain('rulvar.malformedAnswer');
  });

  it('passes an unfinished last event on as it is, and leaves other content types alone', async () => {
    expect(await through([`${GOOD}data: {"jsonrpc":"2.0","id":3,"result":[]}`])).toBe(`${GOOD}data: {"jsonrpc":"2.0","id":3,"result":[]}`);
    expect(await through(['{"jsonrpc":"2.0","id":1,"result":[]}'], 'application/json')).toBe('{"jsonrpc":"2.0","id":1,"result":[]}');
  });
});
