/**
 * Answers the SDK would drop (src/core/mcp/answer-shape.ts): a server that answers a request
 * with something that is not a JSON-RPC response, under the request's own id, gets a protocol
 * error for that request at once, not a wait for the request's timer that then reads as a
 * timeout. The session stays: the server spoke, it is not gone.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SuiteHarness } from './harness.js';
import { expectSourceError, pick, run } from './helpers.js';
import { opening } from './era.js';

type Reply = (id: string | number) => unknown;

/** The bound every request gets here: long enough that settling by the timer fails the test. */
const PATIENT = { connectMs: 30_000, listMs: 30_000, callMs: 30_000 };
/** Settled at once means well inside this, on the slowest runtime under load. */
const AT_ONCE_MS = 5_000;

const INITIALIZED = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'malformed', version: '0' } };
const DISCOVERED = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
const ok = (result: unknown): Reply => (id) => ({ jsonrpc: '2.0', id, result });

/** A hand-written server: `replies` answers a method (else a well-formed default); counts connects. */
function answeringServer(replies: Partial<Record<string, Reply>>) {
  let connects = 0;
  const defaults: Record<string, Reply> = {
    initialize: ok(INITIALIZED),
    'server/discover': ok(DISCOVERED),
    'tools/list': ok({ tools: [{ name: 'one', inputSchema: { type: 'object' } }] }),
    'tools/call': ok({ content: [{ type: 'text', text: 'fine' }] }),
  };
  const server = {
    async connect(transport: Transport): Promise<void> {
      connects += 1;
      transport.onmessage = (message: JSONRPCMessage) => {
        if (!('method' in message) || !('id' in message)) return;
        const reply = replies[message.method] ?? defaults[message.method] ?? ok({});
        void transport.send(reply(message.id) as JSONRPCMessage);
      };
      await transport.start();
    },
  };
  return { server, connects: () => connects };
}

/** [what the answer is, the reply, what the error names] */
const CALL_ANSWERS: ReadonlyArray<readonly [string, Reply, string]> = [
  ['a result that is an array', ok([]), 'a result that is an array, not an object'],
  ['a result that is a string', ok('done'), 'a result that is a string, not an object'],
  ['a null result', ok(null), 'a result that is null, not an object'],
  ['a result that is a number', ok(7), 'a result that is a number, not an object'],
  ['an error that is a string', (id) => ({ jsonrpc: '2.0', id, error: 'boom' }), 'an error that is a string, not an object'],
  ['an error without an integer code', (id) => ({ jsonrpc: '2.0', id, error: { code: 'E1', message: 'no' } }), 'an error without an integer code'],
  ['jsonrpc "1.0"', (id) => ({ jsonrpc: '1.0', id, result: { content: [] } }), 'jsonrpc is not "2.0"'],
  ['a member JSON-RPC does not define', (id) => ({ jsonrpc: '2.0', id, result: { content: [] }, extra: true }), 'members JSON-RPC does not define'],
  ['both a result and an error', (id) => ({ jsonrpc: '2.0', id, result: { content: [] }, error: { code: 1, message: 'x' } }), 'both a result and an error'],
  ['a _meta that is not an object', ok({ content: [], _meta: 5 }), '_meta is not valid MCP'],
];

export function malformedAnswersSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  h.describe('answers that are not JSON-RPC responses', () => {
    for (const [what, reply, names] of CALL_ANSWERS) {
      h.it(`a call answered with ${what} is a server_error at once, naming it; the session stays`, async () => {
        let bad = true;
        const wire = answeringServer({ 'tools/call': (id) => (bad ? reply(id) : ok({ content: [{ type: 'text', text: 'fine' }] })(id)) });
        await using source = mcp({ transport: 'inprocess', server: wire.server, timeouts: PATIENT });
        const one = pick(await source.tools(), 'one');
        const started = Date.now();
        const result = await run(h, one, {});
        h.expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
        h.expect(result).toMatchObject({ isError: true, reason: 'server_error' });
        h.expect(String(result.output)).toContain('the server answered with ');
        h.expect(String(result.output)).toContain(names);
        bad = false;
        h.expect(await run(h, one, {})).toMatchObject({ isError: false, output: 'fine' });
        h.expect(wire.connects()).toBe(1);
      });
    }

    h.it('a well-formed answer with a _meta object is taken as it is', async () => {
      const wire = answeringServer({ 'tools/call': ok({ content: [{ type: 'text', text: 'meta' }], _meta: { progressToken: 1 } }) });
      await using source = mcp({ transport: 'inprocess', server: wire.server, timeouts: PATIENT });
      h.expect(await run(h, pick(await source.tools(), 'one'), {})).toMatchObject({ isError: false, output: 'meta' });
    });

    h.it('a tools/list answered with an array fails the sweep at once with source.protocol', async () => {
      const wire = answeringServer({ 'tools/list': ok([]) });
      await using source = mcp({ transport: 'inprocess', server: wire.server, timeouts: PATIENT });
      const started = Date.now();
      const message = await expectSourceError(h, () => source.tools(), 'source.protocol');
      h.expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
      h.expect(message).toContain('the server answered with a result that is an array, not an object');
    });

    h.it(`an ${opening(h)} answered with a string fails the connect at once, naming it`, async () => {
      const wire = answeringServer({ [opening(h)]: ok('hello') });
      await using source = mcp({ transport: 'inprocess', server: wire.server, timeouts: PATIENT });
      const started = Date.now();
      const error = await source.tools().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      h.expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
      h.expect(h.lib.SourceError.is(error)).toBe(true);
      h.expect(String((error as Error).message)).toContain('a result that is a string, not an object');
    });
  });
}
