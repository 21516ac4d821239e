/**
 * No secret leaves, no flood enters (issue 8, finding 4): a server that echoes the header
 * hook's token back (in an error body, a JSON-RPC message, a content type, a result) never
 * gets it into an error message, a cause, or a tool output, whole, in part, in another case
 * or re-encoded; and a server's huge error text is cut to a stated length. The echoing
 * server is played on every wire the runtime offers (in process, and over loopback TCP).
 */
import { ECHOES, PLACES, type EchoName, type PlaceName } from '../fixtures/echoes.js';
import { echo, rpcResult, status, type Rule } from '../fixtures/wire-rules.js';
import type { SuiteHarness } from './harness.js';
import { caught, pick, run } from './helpers.js';
import { onWire, wiresOf, type Wire } from './wire.js';

const TOKEN = 'sk-live-9f8e7d6c5b4a3210ffeeddccbbaa';
const AUTH = `Bearer ${TOKEN}`;

/** Echoes `how` at `place`, on every request of the place's method. */
const echoing = (place: PlaceName, how: EchoName): Rule => ({ on: PLACES[place].method, reply: echo(place, how) });

/** Places whose request is a tools/list or the handshake, so `tools()` itself fails. */
const onList = (place: PlaceName) => PLACES[place].method !== 'tools/call';

export function secretsSuite(h: SuiteHarness): void {
  for (const wire of wiresOf(h)) {
    h.describe(onWire('secrets echoed by a server are scrubbed', wire), () => echoCases(h, wire));
    h.describe(onWire('server text is cut', wire), () => cutCases(h, wire));
  }
}

/** Fails if any 16 characters of the token survive, in any letter case. */
function expectClean(h: SuiteHarness, text: string): void {
  const lower = text.toLowerCase();
  for (let i = 0; i + 16 <= TOKEN.length; i += 1) h.expect(lower).not.toContain(TOKEN.slice(i, i + 16));
  for (const encoded of [btoa(AUTH), btoa(`x${AUTH};`).slice(4), btoa(`xy${AUTH};`).slice(4)]) {
    h.expect(lower).not.toContain(encoded.toLowerCase().slice(8, 24));
  }
  h.expect(text).toContain('[redacted]');
}

/** A source whose server answers by `rules`; the endpoint goes when the source does. */
async function sourceFor(h: SuiteHarness, wire: Wire, rules: readonly Rule[], headers: unknown = () => ({ authorization: AUTH })) {
  const endpoint = await wire.serve('workbench', { rules });
  const source = h.lib.mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: headers as () => Record<string, string> } });
  return {
    source,
    async [Symbol.asyncDispose]() {
      await source.close();
      await endpoint.close();
    },
  };
}

function echoCases(h: SuiteHarness, wire: Wire): void {
  for (const place of Object.keys(PLACES) as PlaceName[]) {
    for (const how of Object.keys(ECHOES) as EchoName[]) {
      if (how === 'and the one before') continue; // needs a rotating hook: its own case below
      h.it(`${place}, echoed ${how}`, async () => {
        await using served = await sourceFor(h, wire, [echoing(place, how)]);
        if (onList(place)) {
          const error = (await caught(() => served.source.tools())) as Error & { cause?: Error };
          h.expect(h.lib.RulvarError.is(error)).toBe(true);
          expectClean(h, `${error.message} ${error.cause?.message ?? '[redacted]'}`);
          if (error.cause !== undefined) h.expect(error.cause.message.toLowerCase()).not.toContain(TOKEN.slice(0, 16));
        } else {
          const result = await run(h, pick(await served.source.tools(), 'list_notes'), {});
          expectClean(h, JSON.stringify(result.output));
        }
      });
    }
  }

  h.it('a static header record is scrubbed the same way', async () => {
    await using served = await sourceFor(h, wire, [echoing('a 500 body to tools/call', 'whole')], { authorization: AUTH });
    const result = await run(h, pick(await served.source.tools(), 'list_notes'), {});
    h.expect(result).toMatchObject({ isError: true, reason: 'unavailable' });
    expectClean(h, String(result.output));
  });

  h.it('a token sent beside a value that changes per request is never forgotten', async () => {
    let n = 0;
    // Twenty values that change on every request: more than the history keeps.
    const headers = () => {
      n += 1;
      const trace = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-trace-${i}`, `trace-${n}-${i}-0123456789`]));
      return { authorization: AUTH, ...trace };
    };
    await using served = await sourceFor(h, wire, [echoing('a 500 body to tools/call', 'whole')], headers);
    const list = pick(await served.source.tools(), 'list_notes');
    while (n <= 40) await run(h, list, {});
    expectClean(h, String((await run(h, list, {})).output));
  });

  h.it('a short cookie value is scrubbed when echoed alone', async () => {
    await using served = await sourceFor(h, wire, [{ on: 'tools/call', reply: status(500, 'session a1b2c3d4e5f6 expired') }], { cookie: 'sid=a1b2c3d4e5f6' });
    const output = String((await run(h, pick(await served.source.tools(), 'list_notes'), {})).output);
    h.expect(output).not.toContain('a1b2c3d4e5f6');
    h.expect(output).toContain('[redacted]');
  });

  h.it('a token straddling the point where server text is cut leaves no prefix behind', async () => {
    // The SDK's message is 50 characters of prefix and then the body, cut at 500: so the
    // cut falls 12 characters into the header value.
    await using served = await sourceFor(h, wire, [{ on: 'tools/list', reply: status(500, `${'x'.repeat(438)}${AUTH}`) }]);
    const error = (await caught(() => served.source.tools())) as Error & { cause?: Error };
    const text = `${error.message} ${error.cause?.message ?? ''}`;
    h.expect(text).toContain('characters in all');
    h.expect(text).not.toContain('Bearer sk');
    h.expect(text).not.toContain(TOKEN.slice(0, 4));
  });

  h.it('a rotated token is scrubbed, and so is the one before it', async () => {
    let n = 0;
    const headers = () => ({ authorization: `Bearer rotating-token-number-${(n += 1) < 100 ? 'aaaaaaaa' : 'bbbbbbbb'}-${n % 2}` });
    await using served = await sourceFor(h, wire, [echoing('a 500 body to tools/call', 'and the one before')], headers);
    const result = await run(h, pick(await served.source.tools(), 'list_notes'), {});
    h.expect(String(result.output)).not.toContain('rotating-token-number');
  });
}

function cutCases(h: SuiteHarness, wire: Wire): void {
  h.it('a 2 MB error body becomes a message of bounded length stating the original length', async () => {
    await using served = await sourceFor(h, wire, [{ on: 'tools/list', reply: status(500, 'E', 2_000_000) }]);
    const error = (await caught(() => served.source.tools())) as Error & { cause?: Error };
    h.expect(error.message.length).toBeLessThan(1_000);
    h.expect(error.message).toMatch(/characters in all/);
    h.expect(error.cause?.message.length ?? 0).toBeLessThan(1_000);
  });

  h.it('a 9 MB error body becomes a tool output of bounded length', async () => {
    await using served = await sourceFor(h, wire, [{ on: 'tools/call', reply: status(500, 'E', 9_000_000) }]);
    const result = await run(h, pick(await served.source.tools(), 'list_notes'), {});
    h.expect(result).toMatchObject({ isError: true, reason: 'unavailable' });
    h.expect(String(result.output).length).toBeLessThan(1_000);
    h.expect(String(result.output)).toMatch(/characters in all/);
  });

  h.it("a server's isError text is cut at 4,000 characters, saying how long it was", async () => {
    const text = 'x'.repeat(50_000);
    await using served = await sourceFor(h, wire, [{ on: 'tools/call', reply: rpcResult({ isError: true, content: [{ type: 'text', text }] }) }]);
    const result = await run(h, pick(await served.source.tools(), 'list_notes'), {});
    h.expect(result).toMatchObject({ isError: true, reason: 'server_error' });
    h.expect(String(result.output).length).toBeLessThan(4_100);
    h.expect(String(result.output)).toContain('50000 characters in all');
  });
}
