/**
 * Unit tests for src/core/mcp/call.ts with a session of the test's own: one tools/call and
 * every way it can end turned into a value the model reads (the mapped result, or a tool
 * error with its reason and words), never a throw; which failures drop the session (only a
 * lost connection, and on the stateless wire a 400 or 404 is no loss); what is handed to the
 * session (the original name, the caller's signal, the idempotency key, the reconnect's
 * spent time, the progress listener); a cancelled call named for why it was cancelled.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CALLER_SIGNAL, callOnSession, cancelled, type CallTarget } from '../../src/core/mcp/call.js';
import { HeaderHookError } from '../../src/core/mcp/http-fetch.js';
import type { McpSession } from '../../src/core/mcp/session.js';
import { HandshakeTimeout, MalformedAnswer, ServerErrorResponse } from '../../src/core/mcp/wire-client.js';
import { isToolError } from '../../src/core/tools/tool-error.js';
import type { ToolContext } from '../../src/core/tools/types.js';

interface FakeSession {
  readonly session: McpSession;
  readonly calls: unknown[][];
  lost: number;
}

/** A session whose callTool answers with `answer` (a value, a rejection, or a throw). */
function fakeSession(answer: () => Promise<unknown>, stateless = false): FakeSession {
  const fake: FakeSession = {
    calls: [],
    lost: 0,
    session: {
      stateless,
      callTool: (...args: unknown[]) => {
        fake.calls.push(args);
        return answer();
      },
      markLost: () => {
        fake.lost += 1;
      },
      explain: (error: unknown) => `explained ${(error as Error).message}`,
    } as unknown as McpSession,
  };
  return fake;
}

const target: CallTarget = { name: 'search', hasOutputSchema: false };
const plainCtx = (signal?: AbortSignal): ToolContext => ({ [CALLER_SIGNAL]: signal, idempotencyKey: 'key-1' }) as unknown as ToolContext;

/** The [reason, message] of a tool error, or the value when it is none. */
const outcome = (value: unknown) => (isToolError(value) ? [value.reason, value.message] : value);

async function callWith(error: unknown, stateless = false) {
  const fake = fakeSession(() => Promise.reject(error), stateless);
  const value = await callOnSession(fake.session, 'mcp:src', target, {}, plainCtx());
  return { value: outcome(value), lost: fake.lost };
}

describe('what reaches the session', () => {
  it('the original name, the args, the caller signal, the key, the spent time and the listener', async () => {
    const signal = new AbortController().signal;
    const report = () => {};
    const fake = fakeSession(() => Promise.resolve({ content: [{ type: 'text', text: 'found' }] }));
    const value = await callOnSession(fake.session, 'mcp:src', target, { q: 1 }, plainCtx(signal), 250, report);
    expect(value).toBe('found');
    expect(fake.calls).toEqual([['search', { q: 1 }, signal, 'key-1', 250, report]]);
  });

  it('a structured result is checked against the target: an outputSchema with none is invalid_output', async () => {
    const fake = fakeSession(() => Promise.resolve({ content: [] }));
    const value = await callOnSession(fake.session, 'mcp:src', { name: 'x', hasOutputSchema: true }, {}, plainCtx());
    expect(outcome(value)).toEqual(['invalid_output', 'the tool declares an outputSchema but returned no structuredContent']);
  });
});

describe('every failure is a result', () => {
  it.each([
    ['a JSON-RPC error', new ServerErrorResponse(-32000, 'quota spent'), ['server_error', 'search failed with JSON-RPC error -32000: quota spent']],
    ["the SDK's own timer", new McpError(ErrorCode.RequestTimeout, 'Request timed out'), ['timeout', 'search timed out: MCP error -32001: Request timed out']],
    ['a handshake step past its bound', new HandshakeTimeout('initialize took too long'), ['timeout', 'search timed out: initialize took too long']],
    ['a malformed answer', new MalformedAnswer('the server answered with an array'), ['server_error', 'search: the server answered with an array']],
    ['a result that is not MCP', Object.assign(new Error('bad'), { name: 'ZodError', issues: [] }), ['server_error', 'search: the server sent a result that is not valid MCP']],
    ["the host's header hook", new HeaderHookError('http.headers threw'), ['unavailable', 'mcp:src: http.headers threw']],
    ['a 429', new StreamableHTTPError(429, 'Too Many Requests'), ['unavailable', 'mcp:src: the request failed: Streamable HTTP error: Too Many Requests']],
    ['a thrown string', 'odd', ['unavailable', 'mcp:src: the request failed: odd']],
  ])('%s', async (_name, error, expected) => {
    expect(await callWith(error)).toEqual({ value: expected, lost: 0 });
  });

  it('a closed connection, a forgotten session and "Not connected" drop the session', async () => {
    for (const error of [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), new StreamableHTTPError(404, 'Not Found'), new StreamableHTTPError(400, 'Bad Request'), new Error('Not connected')]) {
      const { value, lost } = await callWith(error);
      expect([value, lost]).toEqual([['unavailable', `mcp:src is unavailable: explained ${(error as Error).message}`], 1]);
    }
  });

  it('on the stateless wire a 400 or 404 is one refused request; the session stays', async () => {
    expect(await callWith(new StreamableHTTPError(404, 'Not Found'), true)).toEqual({ value: ['unavailable', 'mcp:src: the request failed: Streamable HTTP error: Not Found'], lost: 0 });
  });

  it('a session that throws at once, or a result that throws when read, is a result too', async () => {
    const throwing = fakeSession(() => {
      throw new ServerErrorResponse(1, 'sync');
    });
    expect(outcome(await callOnSession(throwing.session, 'mcp:src', target, {}, plainCtx()))).toEqual(['server_error', 'search failed with JSON-RPC error 1: sync']);
    const hostile = { get content(): never { throw new Error('getter'); } };
    const reading = fakeSession(() => Promise.resolve(hostile));
    expect(outcome(await callOnSession(reading.session, 'mcp:src', target, {}, plainCtx()))).toEqual(['unavailable', 'mcp:src: the request failed: getter']);
  });
});

describe('a call its caller cancelled', () => {
  it('is named for its deadline or for the cancel, whatever the wire said, and drops nothing', async () => {
    const controller = new AbortController();
    const fake = fakeSession(() => {
      controller.abort();
      return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'closed'));
    });
    expect(outcome(await callOnSession(fake.session, 'mcp:src', target, {}, plainCtx(controller.signal)))).toEqual(['unavailable', 'search was cancelled before it finished']);
    expect(fake.lost).toBe(0);
  });

  it('cancelled: a TimeoutError reason is a timeout; any other reason is not', () => {
    const timedOut = AbortSignal.abort(new DOMException('late', 'TimeoutError')); // AbortSignal.timeout's reason
    expect(outcome(cancelled('x', timedOut))).toEqual(['timeout', 'x was cancelled: its deadline passed']);
    expect(outcome(cancelled('x', AbortSignal.abort()))).toEqual(['unavailable', 'x was cancelled before it finished']);
    const deadline = new AbortController();
    deadline.abort(Object.assign(new Error('late'), { name: 'TimeoutError' }));
    expect(outcome(cancelled('x', deadline.signal))).toEqual(['timeout', 'x was cancelled: its deadline passed']);
    const plain = new AbortController();
    plain.abort({ name: 'TimeoutError' });
    expect(outcome(cancelled('x', plain.signal))).toEqual(['unavailable', 'x was cancelled before it finished']);
  });
});
