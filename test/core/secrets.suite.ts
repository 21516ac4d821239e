/**
 * No secret leaves, no flood enters (issue 8, finding 4): a server that echoes the header
 * hook's token back (in an error body, a JSON-RPC message, a content type, a result) never
 * gets it into an error message, a cause, or a tool output, whole, in part, in another case
 * or re-encoded; and a server's huge error text is cut to a stated length.
 */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { intercept, json, type Exchange } from '../fixtures/hostile-wire.js';
import type { SuiteHarness } from './harness.js';
import { caught, pick, run } from './helpers.js';

const URL_ = 'https://echo.test/mcp';
const TOKEN = 'sk-live-9f8e7d6c5b4a3210ffeeddccbbaa';
const AUTH = `Bearer ${TOKEN}`;

/** The ways a server might send the header back. */
const ECHOES: Record<string, (auth: string) => string> = {
  whole: (auth) => `you sent ${auth}`,
  'token alone': (auth) => `token=${auth.slice(7)};`,
  'first 20 characters': (auth) => `prefix ${auth.slice(7, 27)} (truncated)`,
  'upper case': (auth) => `AUTH: ${auth.toUpperCase()}`,
  'URL encoded': (auth) => `/callback?auth=${encodeURIComponent(auth)}`,
  base64: (auth) => `b64:${btoa(auth)}`,
  'base64 inside a longer text, offset 1': (auth) => `b64:${btoa(`x${auth};`)}`,
  'base64 inside a longer text, offset 2': (auth) => `b64:${btoa(`xy${auth};`)}`,
  'JSON escaped inside JSON': (auth) => JSON.stringify({ echoed: { header: auth } }),
};

type Answer = (exchange: Exchange, echo: string) => Response | undefined;

/** Where the echo is put, and what it must not reach. */
const PLACES: { name: string; on: 'list' | 'call'; answer: Answer }[] = [
  { name: 'a 500 body to tools/list', on: 'list', answer: (e, echo) => (e.method === 'tools/list' ? new Response(echo, { status: 500 }) : undefined) },
  { name: 'a 500 body to initialize', on: 'list', answer: (e, echo) => (e.method === 'initialize' ? new Response(echo, { status: 500 }) : undefined) },
  {
    name: 'a JSON-RPC error to tools/list',
    on: 'list',
    answer: (e, echo) => (e.method === 'tools/list' ? json({ jsonrpc: '2.0', id: e.id, error: { code: -32000, message: echo } }) : undefined),
  },
  {
    name: 'a cursor the sweep quotes',
    on: 'list',
    answer: (e, echo) => (e.method === 'tools/list' ? json({ jsonrpc: '2.0', id: e.id, result: { tools: [], nextCursor: echo } }) : undefined),
  },
  { name: 'a 500 body to tools/call', on: 'call', answer: (e, echo) => (e.method === 'tools/call' ? new Response(echo, { status: 500 }) : undefined) },
  {
    name: 'a JSON-RPC error to tools/call',
    on: 'call',
    answer: (e, echo) => (e.method === 'tools/call' ? json({ jsonrpc: '2.0', id: e.id, error: { code: -32603, message: echo } }) : undefined),
  },
  {
    name: 'a content type',
    on: 'call',
    answer: (e, echo) => (e.method === 'tools/call' ? new Response('{}', { status: 200, headers: { 'content-type': `application/x-${echo.replace(/[^\x20-\x7e]/g, '')}` } }) : undefined),
  },
  {
    name: 'an isError result',
    on: 'call',
    answer: (e, echo) => (e.method === 'tools/call' ? json({ jsonrpc: '2.0', id: e.id, result: { isError: true, content: [{ type: 'text', text: echo }] } }) : undefined),
  },
  {
    name: 'a successful result, text and structured',
    on: 'call',
    answer: (e, echo) =>
      e.method === 'tools/call'
        ? json({ jsonrpc: '2.0', id: e.id, result: { content: [{ type: 'text', text: echo }, { type: 'image', data: 'AA==', mimeType: 'image/png', alt: echo }] } })
        : undefined,
  },
];

export function secretsSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  /** Fails if any 16 characters of the token survive, in any letter case. */
  const expectClean = (text: string) => {
    const lower = text.toLowerCase();
    for (let i = 0; i + 16 <= TOKEN.length; i += 1) h.expect(lower).not.toContain(TOKEN.slice(i, i + 16));
    for (const encoded of [btoa(AUTH), btoa(`x${AUTH};`).slice(4), btoa(`xy${AUTH};`).slice(4)]) {
      h.expect(lower).not.toContain(encoded.toLowerCase().slice(8, 24));
    }
    h.expect(text).toContain('[redacted]');
  };

  const sourceFor = (answer: Answer, echo: (auth: string) => string, headers: unknown = () => ({ authorization: AUTH })) => {
    const endpoint = createMcpEndpoint(createWorkbenchServer);
    const fetch = intercept(endpoint.fetch, (exchange) => answer(exchange, echo(exchange.authorization ?? '')));
    return mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers: headers as () => Record<string, string> } });
  };

  h.describe('secrets echoed by a server are scrubbed', () => {
    for (const place of PLACES) {
      for (const [how, echo] of Object.entries(ECHOES)) {
        h.it(`${place.name}, echoed ${how}`, async () => {
          await using source = sourceFor(place.answer, echo);
          if (place.on === 'list') {
            const error = (await caught(() => source.tools())) as Error & { cause?: Error };
            h.expect(h.lib.RulvarError.is(error)).toBe(true);
            expectClean(`${error.message} ${error.cause?.message ?? '[redacted]'}`);
            if (error.cause !== undefined) h.expect(error.cause.message.toLowerCase()).not.toContain(TOKEN.slice(0, 16));
          } else {
            const result = await run(h, pick(await source.tools(), 'list_notes'), {});
            expectClean(JSON.stringify(result.output));
          }
        });
      }
    }

    h.it('a static header record is scrubbed the same way', async () => {
      await using source = sourceFor(PLACES[4]!.answer, ECHOES['whole']!, { authorization: AUTH });
      const result = await run(h, pick(await source.tools(), 'list_notes'), {});
      h.expect(result).toMatchObject({ isError: true, reason: 'unavailable' });
      expectClean(String(result.output));
    });

    h.it('a token sent beside a value that changes per request is never forgotten', async () => {
      let n = 0;
      // Twenty values that change on every request: more than the history keeps.
      const headers = () => {
        n += 1;
        const trace = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-trace-${i}`, `trace-${n}-${i}-0123456789`]));
        return { authorization: AUTH, ...trace };
      };
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, (e) => (e.method === 'tools/call' && n > 40 ? new Response(`echo ${e.authorization}`, { status: 500 }) : undefined));
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers } });
      const list = pick(await source.tools(), 'list_notes');
      while (n <= 40) await run(h, list, {});
      expectClean(String((await run(h, list, {})).output));
    });

    h.it('a short cookie value is scrubbed when echoed alone', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      const fetch = intercept(endpoint.fetch, (e) => (e.method === 'tools/call' ? new Response('session a1b2c3d4e5f6 expired', { status: 500 }) : undefined));
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers: { cookie: 'sid=a1b2c3d4e5f6' } } });
      const output = String((await run(h, pick(await source.tools(), 'list_notes'), {})).output);
      h.expect(output).not.toContain('a1b2c3d4e5f6');
      h.expect(output).toContain('[redacted]');
    });

    h.it('a token straddling the point where server text is cut leaves no prefix behind', async () => {
      // The SDK's message is 50 characters of prefix and then the body, cut at 500: so the
      // cut falls 12 characters into the header value.
      await using source = sourceFor((e) => (e.method === 'tools/list' ? new Response(`${'x'.repeat(438)}${AUTH}`, { status: 500 }) : undefined), () => '');
      const error = (await caught(() => source.tools())) as Error & { cause?: Error };
      const text = `${error.message} ${error.cause?.message ?? ''}`;
      h.expect(text).toContain('characters in all');
      h.expect(text).not.toContain('Bearer sk');
      h.expect(text).not.toContain(TOKEN.slice(0, 4));
    });

    h.it('a rotated token is scrubbed, and so is the one before it', async () => {
      let n = 0;
      const headers = () => ({ authorization: `Bearer rotating-token-number-${(n += 1) < 100 ? 'aaaaaaaa' : 'bbbbbbbb'}-${n % 2}` });
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let previous = '';
      const fetch = intercept(endpoint.fetch, (exchange) => {
        const answer = exchange.method === 'tools/call' ? new Response(`now ${exchange.authorization}, before ${previous}`, { status: 500 }) : undefined;
        previous = exchange.authorization ?? '';
        return answer;
      });
      await using source = mcp({ transport: 'streamable-http', url: URL_, http: { fetch, headers } });
      const result = await run(h, pick(await source.tools(), 'list_notes'), {});
      h.expect(String(result.output)).not.toContain('rotating-token-number');
    });
  });

  h.describe('server text is cut', () => {
    h.it('a 2 MB error body becomes a message of bounded length stating the original length', async () => {
      const body = 'E'.repeat(2_000_000);
      await using source = sourceFor((e) => (e.method === 'tools/list' ? new Response(body, { status: 500 }) : undefined), () => '');
      const error = (await caught(() => source.tools())) as Error & { cause?: Error };
      h.expect(error.message.length).toBeLessThan(1_000);
      h.expect(error.message).toMatch(/characters in all/);
      h.expect(error.cause?.message.length ?? 0).toBeLessThan(1_000);
    });

    h.it('a 9 MB error body becomes a tool output of bounded length', async () => {
      const body = 'E'.repeat(9_000_000);
      await using source = sourceFor((e) => (e.method === 'tools/call' ? new Response(body, { status: 500 }) : undefined), () => '');
      const result = await run(h, pick(await source.tools(), 'list_notes'), {});
      h.expect(result).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(String(result.output).length).toBeLessThan(1_000);
      h.expect(String(result.output)).toMatch(/characters in all/);
    });

    h.it("a server's isError text is cut at 4,000 characters, saying how long it was", async () => {
      const text = 'x'.repeat(50_000);
      await using source = sourceFor(
        (e) => (e.method === 'tools/call' ? json({ jsonrpc: '2.0', id: e.id, result: { isError: true, content: [{ type: 'text', text }] } }) : undefined),
        () => '',
      );
      const result = await run(h, pick(await source.tools(), 'list_notes'), {});
      h.expect(result).toMatchObject({ isError: true, reason: 'server_error' });
      h.expect(String(result.output).length).toBeLessThan(4_100);
      h.expect(String(result.output)).toContain('50000 characters in all');
    });
  });
}
