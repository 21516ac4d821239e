/**
 * Unit tests of postStream (src/adapters/post-stream.ts) over a fetch that answers what each
 * case says, with bounds of a few bytes where the suites use megabytes (which the mutation run
 * skips): retries of a retryable answer up to maxRetries and not past; a declared or streamed
 * body past maxResponseBytes refused at the byte past it, not at it; an event past
 * maxEventBytes; a whole JSON answer as one event; timeoutMs on an answer that never comes.
 */
import { describe, expect, it } from 'vitest';
import { transportOf } from '../../src/adapters/options.js';
import { postStream } from '../../src/adapters/post-stream.js';
import type { SseEvent } from '../../src/adapters/sse.js';
import { caught } from '../core/helpers.js';

const live = () => new AbortController().signal;
const SSE = { 'content-type': 'text/event-stream' };

/** A postStream over a fetch whose n-th call returns answers[n]() (the last one again after that). */
function streamOf(answers: (() => Response | Promise<Response>)[], options: Parameters<typeof transportOf>[0] = {}) {
  let calls = 0;
  const fetch = () => {
    const answer = answers[Math.min(calls, answers.length - 1)] as () => Response;
    calls += 1;
    return Promise.resolve(answer());
  };
  const transport = transportOf({ fetch, maxRetries: 2, ...options }, 'sk-unit-0123456789');
  const request = { provider: 'unit', url: 'https://provider.test/v1', headers: {}, encode: () => ({ q: 1 }), transport };
  const drain = async (): Promise<SseEvent[]> => {
    const events: SseEvent[] = [];
    for await (const event of postStream(request, live())) events.push(event);
    return events;
  };
  return { drain, calls: () => calls };
}

const failureOf = async (work: () => Promise<unknown>) => (await caught(work)) as { code?: string; message: string; retryable?: boolean };

describe('postStream', () => {
  it('a retryable answer is tried again up to maxRetries, then fails; a final one at once', async () => {
    const busy = streamOf([() => new Response('busy', { status: 503, headers: { 'retry-after': '0' } })]);
    expect(await failureOf(busy.drain)).toMatchObject({ code: 'model.failed', retryable: true });
    expect(busy.calls()).toBe(3);
    const denied = streamOf([() => new Response('{"error":{"message":"bad key"}}', { status: 401 })]);
    expect((await failureOf(denied.drain)).retryable).toBe(false);
    expect(denied.calls()).toBe(1);
    const recovered = streamOf([() => new Response('busy', { status: 500, headers: { 'retry-after': '0' } }), () => new Response('data: ok\n\n', { headers: SSE })]);
    expect(await recovered.drain()).toEqual([{ event: 'message', data: 'ok' }]);
    expect(recovered.calls()).toBe(2);
  });

  it('a declared length past maxResponseBytes is refused unread; the bound itself is not', async () => {
    const body = 'data: 1234\n\n';
    const at = streamOf([() => new Response(body, { headers: { ...SSE, 'content-length': String(body.length) } })], { maxResponseBytes: body.length });
    expect(await at.drain()).toEqual([{ event: 'message', data: '1234' }]);
    const past = streamOf([() => new Response(body, { headers: { ...SSE, 'content-length': String(body.length + 1) } })], { maxResponseBytes: body.length });
    expect(await failureOf(past.drain)).toMatchObject({ code: 'model.protocol', message: expect.stringContaining('maxResponseBytes') });
  });

  it('a stream past maxResponseBytes is refused at the byte past it; an event past maxEventBytes too', async () => {
    const body = 'data: 1234\n\n';
    expect(await streamOf([() => new Response(body, { headers: SSE })], { maxResponseBytes: body.length }).drain()).toHaveLength(1);
    expect(await failureOf(streamOf([() => new Response(`${body}:`, { headers: SSE })], { maxResponseBytes: body.length }).drain)).toMatchObject({
      code: 'model.protocol',
      message: `unit streamed more than maxResponseBytes (${body.length})`,
    });
    expect(await failureOf(streamOf([() => new Response('data: 12345678\n\n', { headers: SSE })], { maxEventBytes: 8 }).drain)).toMatchObject({
      code: 'model.protocol',
      message: 'unit streamed an event of more than maxEventBytes (8)',
    });
    expect(await failureOf(streamOf([() => new Response(Uint8Array.of(0x64, 0xff, 0x0a), { headers: SSE })]).drain)).toMatchObject({ code: 'model.protocol', message: 'unit streamed bytes that are not UTF-8' });
  });

  it('a JSON answer to a streaming request is one whole event, bounded and strict like any body', async () => {
    const json = { 'content-type': 'Application/JSON; charset=utf-8' };
    expect(await streamOf([() => new Response('{"a":1}', { headers: json })]).drain()).toEqual([{ event: 'whole', data: '{"a":1}', whole: true }]);
    expect(await failureOf(streamOf([() => new Response('{"a":12}', { headers: json })], { maxResponseBytes: 7 }).drain)).toMatchObject({
      code: 'model.protocol',
      message: 'unit answered with a body of more than maxResponseBytes (7)',
    });
    expect(await failureOf(streamOf([() => new Response(Uint8Array.of(0x7b, 0xff), { headers: json })]).drain)).toMatchObject({ message: 'unit answered with a body that is not UTF-8' });
  });

  it('an answer that never comes ends at timeoutMs, final, naming it', async () => {
    const hung = streamOf([() => new Promise<Response>(() => undefined)], { timeoutMs: 50, maxRetries: 0 });
    const started = Date.now();
    expect(await failureOf(hung.drain)).toMatchObject({ code: 'model.failed', retryable: false, message: 'unit did not answer within 50 ms' });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(45);
    expect(took).toBeLessThan(3_000);
  });
});
