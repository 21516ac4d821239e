/**
 * Unit tests for src/core/mcp/modern/calls.ts and list.ts with a wire client of the test's
 * own: one retry on -32022 offering 2026-07-28 and no other; a call result read by its
 * resultType; input rounds (requestState echoed byte for byte, elicitation cancelled, roots
 * empty, anything else refused) at most MAX_INPUT_ROUNDS in all within one callMs; and the
 * modern sweep (the subscription first, each page's ttlMs, x-mcp-header plans over HTTP).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callTool, listPage, MAX_INPUT_ROUNDS } from '../../src/core/mcp/modern/calls.js';
import type { ModernLink } from '../../src/core/mcp/modern/link.js';
import type { ToolListener } from '../../src/core/mcp/modern/listen.js';
import { sweepModern } from '../../src/core/mcp/modern/list.js';
import { MalformedAnswer, ServerErrorResponse, type WireClient } from '../../src/core/mcp/wire-client.js';

interface Sent {
  readonly request: { method: string; params: Record<string, unknown> };
  readonly options: unknown;
  readonly signal: unknown;
  readonly progress: unknown;
}

/** A client whose n-th call gets answers[n] (a value, or an error to reject with). */
function client(answers: readonly unknown[]) {
  const sent: Sent[] = [];
  const wire = {
    call: (request: Sent['request'], _schema: unknown, options: unknown, signal: unknown, progress: unknown) => {
      sent.push({ request: structuredClone(request), options, signal, progress });
      const answer = answers[sent.length - 1];
      if (answer === undefined) return Promise.reject(new Error('no more answers'));
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as WireClient;
  return { wire, sent };
}

const unsupported = (supported: unknown) => new ServerErrorResponse(-32022, 'Unsupported protocol version', { supported });
const done = { content: [{ type: 'text', text: 'ok' }] };
const call = (wire: WireClient, timeout?: number, signal?: AbortSignal, progress?: object) =>
  callTool(wire, { name: 'echo', arguments: { a: 1 } }, timeout, signal, progress);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: 5_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('retrying on -32022', () => {
  it('once, when the server offers 2026-07-28; a second refusal is the answer', async () => {
    const { wire, sent } = client([unsupported(['2026-07-28']), done]);
    expect(await call(wire)).toEqual(done);
    expect(sent).toHaveLength(2);
    const twice = client([unsupported(['2026-07-28']), unsupported(['2026-07-28'])]);
    await expect(call(twice.wire)).rejects.toMatchObject({ code: -32022 });
    expect(twice.sent).toHaveLength(2);
  });

  it.each([
    ['another version only', unsupported(['2025-11-25'])],
    ['no readable list', unsupported('2026-07-28')],
    ['another error code', new ServerErrorResponse(-32021, 'capability', { supported: ['2026-07-28'] })],
    ['an error that is no server answer', new Error('network')],
  ])('not when it offers %s', async (_name, error) => {
    const { wire, sent } = client([error, done]);
    await expect(call(wire)).rejects.toBe(error);
    expect(sent).toHaveLength(1);
  });

  it('tools/list retries the same way, with its cursor and timeout', async () => {
    const { wire, sent } = client([unsupported(['2026-07-28']), { tools: [] }]);
    expect(await listPage(wire, 'c1', 500)).toEqual({ tools: [] });
    expect(sent.map(({ request, options }) => [request, options])).toEqual([
      [{ method: 'tools/list', params: { cursor: 'c1' } }, { timeout: 500 }],
      [{ method: 'tools/list', params: { cursor: 'c1' } }, { timeout: 500 }],
    ]);
    const first = client([{ tools: [] }]);
    await listPage(first.wire, undefined, undefined);
    expect(first.sent.map(({ request, options }) => [request, options])).toStrictEqual([[{ method: 'tools/list', params: {} }, {}]]);
  });
});

describe('a call result', () => {
  it('complete or of no result type is the result; the call carries name, arguments, signal and progress', async () => {
    const signal = new AbortController().signal;
    const progress = { onProgress: () => {}, spentMs: 30 };
    const { wire, sent } = client([{ ...done, resultType: 'complete' }]);
    expect(await call(wire, undefined, signal, progress)).toEqual({ ...done, resultType: 'complete' });
    expect(sent).toEqual([{ request: { method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } }, options: undefined, signal, progress }]);
  });

  it('an unknown resultType is malformed, quoted cut to 40 characters', async () => {
    const { wire } = client([{ ...done, resultType: `partial${'x'.repeat(60)}` }]);
    const failed = call(wire);
    await expect(failed).rejects.toBeInstanceOf(MalformedAnswer);
    await expect(failed).rejects.toThrow(`the server answered with a result of unknown resultType "partial${'x'.repeat(33)}"`);
  });
});

describe('input rounds', () => {
  const asking = (extra: Record<string, unknown>) => ({ resultType: 'input_required', ...extra });

  it('requestState is echoed as it came; elicitation is cancelled and roots are empty', async () => {
    const state = ' opaque \u00e9 state ';
    const { wire, sent } = client([
      asking({ requestState: state, inputRequests: { e: { method: 'elicitation/create' }, r: { method: 'roots/list' } } }),
      asking({ requestState: 'second' }),
      done,
    ]);
    expect(await call(wire)).toEqual(done);
    expect(sent.map(({ request }) => request.params)).toEqual([
      { name: 'echo', arguments: { a: 1 } },
      { name: 'echo', arguments: { a: 1 }, requestState: state, inputResponses: { e: { action: 'cancel' }, r: { roots: [] } } },
      { name: 'echo', arguments: { a: 1 }, requestState: 'second' },
    ]);
  });

  it('input requests alone are answered without a state', async () => {
    const { wire, sent } = client([asking({ inputRequests: { r: { method: 'roots/list' } } }), done]);
    await call(wire);
    expect(sent[1]!.request.params).toEqual({ name: 'echo', arguments: { a: 1 }, inputResponses: { r: { roots: [] } } });
  });

  it.each([
    ['neither requests nor state', {}, 'the server asked for input without inputRequests or requestState'],
    ['a state that is a number', { requestState: 5 }, 'the server answered with a requestState that is not a string'],
    ['a state that is an object', { requestState: { s: 1 } }, 'the server answered with a requestState that is not a string'],
    ['requests that are a list', { inputRequests: [{ method: 'roots/list' }] }, 'the server asked for input with inputRequests that are not a small map'],
    ['33 requests', { inputRequests: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, { method: 'roots/list' }])) }, 'the server asked for input with inputRequests that are not a small map'],
    ['sampling', { inputRequests: { s: { method: 'sampling/createMessage' } } }, 'the server asked for input this client does not give ("sampling/createMessage")'],
    ['a request that is no object', { inputRequests: { s: 'roots/list' } }, 'the server asked for input this client does not give ("undefined")'],
  ])('%s is malformed', async (_name, extra, message) => {
    const { wire, sent } = client([asking(extra), done]);
    await expect(call(wire)).rejects.toThrow(message);
    expect(sent).toHaveLength(1);
  });

  it('32 requests are answered', async () => {
    const requests = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, { method: 'roots/list' }]));
    expect(await call(client([asking({ inputRequests: requests }), done]).wire)).toEqual(done);
  });

  it(`at most ${MAX_INPUT_ROUNDS} rounds in all`, async () => {
    const rounds = Array.from({ length: MAX_INPUT_ROUNDS }, () => asking({ requestState: 's' }));
    const { wire, sent } = client([...rounds, done]);
    await expect(call(wire)).rejects.toThrow(`the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    expect(sent).toHaveLength(MAX_INPUT_ROUNDS);
    expect(await call(client([...rounds.slice(1), done]).wire)).toEqual(done);
  });

  it('every round waits what is left of the one timeout, at least 1 ms; later rounds get a whole idle window', async () => {
    const answers = [asking({ requestState: 'a' }), asking({ requestState: 'b' }), done];
    const progress = { idleMs: 100, spentMs: 40 };
    const sent: Sent[] = [];
    const wire = {
      call: (request: Sent['request'], _schema: unknown, options: unknown, signal: unknown, watched: unknown) => {
        sent.push({ request, options, signal, progress: watched });
        vi.setSystemTime(Date.now() + 600);
        return Promise.resolve(answers[sent.length - 1]);
      },
    } as unknown as WireClient;
    await call(wire, 1_000, undefined, progress);
    expect(sent.map(({ options }) => options)).toEqual([{ timeout: 1_000 }, { timeout: 400 }, { timeout: 1 }]);
    expect(sent.map(({ progress: watched }) => watched)).toEqual([progress, { idleMs: 100, spentMs: 0 }, { idleMs: 100, spentMs: 0 }]);
  });
});

describe('sweepModern', () => {
  const tool = (name: string, header?: unknown): Tool => ({
    name,
    inputSchema: { type: 'object', properties: header === undefined ? {} : { r: { type: 'string', 'x-mcp-header': header } } },
  });
  const link = (http: boolean) => ({ http, plans: new Map([['stale', []]]) }) as unknown as ModernLink;

  it('opens the subscription first, with listMs, else connectMs, else 10 s to be acknowledged', async () => {
    const waits: number[] = [];
    const listener = { ensure: (ms: number) => (waits.push(ms), Promise.resolve()) } as unknown as ToolListener;
    for (const timeouts of [{ listMs: 300, connectMs: 500 }, { connectMs: 500 }, undefined]) {
      await sweepModern(client([{ tools: [] }]).wire, link(false), listener, timeouts === undefined ? {} : { timeouts }, 'mcp:t', {});
    }
    expect(waits).toEqual([300, 500, 10_000]);
  });

  it('the list goes stale at the smallest ttlMs of its pages; with none, at once', async () => {
    const now = Date.now();
    const pages = [{ tools: [tool('a')], nextCursor: 'c', ttlMs: 5_000 }, { tools: [tool('b')], ttlMs: 2_000 }];
    const swept = await sweepModern(client(pages).wire, link(false), undefined, {}, 'mcp:t', {});
    expect([swept.tools.map((t) => t.name), swept.expires]).toEqual([['a', 'b'], now + 2_000]);
    expect((await sweepModern(client([{ tools: [] }]).wire, link(false), undefined, {}, 'mcp:t', {})).expires).toBe(now);
  });

  it('over HTTP, header plans go to the link and a tool with a bad annotation is left out, named', async () => {
    const skipped: unknown[] = [];
    const http = link(true);
    const page = { tools: [tool('plain'), tool('routed', 'Region'), tool('bad', 'no good')] };
    const swept = await sweepModern(client([page]).wire, http, undefined, { onToolSkipped: (info) => skipped.push(info) }, 'mcp:t', {});
    expect(swept.tools.map((t) => t.name)).toEqual(['plain', 'routed']);
    expect([...http.plans]).toEqual([['routed', [{ path: ['r'], name: 'Region' }]]]);
    expect(skipped).toEqual([{ name: 'bad', reason: 'its x-mcp-header "no good" is not a non-empty HTTP token' }]);
  });

  it('over HTTP with every tool kept, the tools are handed on as they came; on stdio no plans are made', async () => {
    const page = { tools: [tool('routed', 'Region')] };
    const stdio = link(false);
    const swept = await sweepModern(client([page]).wire, stdio, undefined, {}, 'mcp:t', {});
    expect([swept.tools.map((t) => t.name), [...stdio.plans.keys()]]).toEqual([['routed'], ['stale']]);
    const http = link(true);
    expect((await sweepModern(client([page]).wire, http, undefined, {}, 'mcp:t', {})).tools[0]).toBe(page.tools[0]);
  });
});
