/**
 * The MCP call path as issue 14 left it: a call's abort no longer rides an AbortSignal made
 * per call (WireClient.call settles the request itself), a result is checked in place rather
 * than parsed into a copy, and dispatchTool makes a call's signal only when a tool reads it.
 * Each guarantee those used to give is pinned here: a cancelled call ends at once and the
 * server is told which request, a late answer changes nothing, a malformed result is still
 * "not valid MCP", and what the history keeps is not the server's own object.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SuiteHarness } from './harness.js';
import { pick, run, sleep, until } from './helpers.js';

type Answer = (params: Record<string, unknown>) => unknown;

/** A hand-written server that keeps every message it receives and answers tools/call with `answer`. */
function recordingServer(answer: Answer) {
  const seen: JSONRPCMessage[] = [];
  let connects = 0;
  const server = {
    async connect(transport: Transport): Promise<void> {
      connects += 1;
      transport.onmessage = (message: JSONRPCMessage) => {
        seen.push(message);
        if (!('method' in message) || !('id' in message)) return;
        const params = (message.params ?? {}) as Record<string, unknown>;
        const result =
          message.method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'recording', version: '0' } }
            : message.method === 'tools/list'
              ? { tools: [{ name: 'one', inputSchema: { type: 'object' } }] }
              : answer(params);
        void Promise.resolve(result).then((value) => transport.send({ jsonrpc: '2.0', id: message.id, result: value as Record<string, unknown> }));
      };
      await transport.start();
    },
  };
  const calls = () => seen.filter((m) => 'method' in m && m.method === 'tools/call' && 'id' in m) as Array<JSONRPCMessage & { id: number }>;
  const cancellations = () =>
    seen.filter((m) => 'method' in m && m.method === 'notifications/cancelled').map((m) => ('params' in m ? m.params : undefined));
  return { server, calls, cancellations, connects: () => connects };
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

export function callPathSuite(h: SuiteHarness): void {
  const { mcp, dispatchTool, resolveToolset, tool } = h.lib;

  h.describe('call path: abort without a signal per call', () => {
    h.it('aborting a call in flight ends it at once, tells the server which request, and keeps the session', async () => {
      let hang = true;
      const wire = recordingServer(() => (hang ? new Promise(() => undefined) : text('second')));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      const controller = new AbortController();
      const started = Date.now();
      const pending = run(h, one, {}, controller.signal);
      await until(() => wire.calls().length === 1, 'the call reached the server');
      controller.abort();
      h.expect(await pending).toMatchObject({ isError: true, reason: 'unavailable' });
      h.expect(Date.now() - started).toBeLessThan(2_000);
      await until(() => wire.cancellations().length === 1, 'notifications/cancelled reached the server');
      h.expect(wire.cancellations()[0]).toMatchObject({ requestId: wire.calls()[0]?.id });
      hang = false;
      h.expect(await run(h, one, {})).toMatchObject({ isError: false, output: 'second' });
      h.expect(wire.connects()).toBe(1);
    });

    h.it("a deadline signal that fires mid-call is the call's timeout", async () => {
      const wire = recordingServer(() => new Promise(() => undefined));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      h.expect(await run(h, one, {}, AbortSignal.timeout(50))).toMatchObject({ isError: true, reason: 'timeout' });
      await until(() => wire.cancellations().length === 1, 'notifications/cancelled reached the server');
    });

    h.it('an already aborted signal sends nothing', async () => {
      const wire = recordingServer(() => text('ran'));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      h.expect(await run(h, one, {}, AbortSignal.abort())).toMatchObject({ isError: true, reason: 'unavailable' });
      await sleep(20);
      h.expect(wire.calls()).toHaveLength(0);
      h.expect(wire.cancellations()).toHaveLength(0);
    });

    h.it('a late answer to an abandoned call is dropped: the next call gets its own', async () => {
      const release: Array<() => void> = [];
      let n = 0;
      const wire = recordingServer(() => {
        n += 1;
        const mine = `answer ${n}`;
        return n === 1 ? new Promise((resolve) => release.push(() => resolve(text(mine)))) : text(mine);
      });
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      const controller = new AbortController();
      const pending = run(h, one, {}, controller.signal);
      await until(() => release.length === 1, 'the first call reached the server');
      controller.abort();
      h.expect(await pending).toMatchObject({ isError: true });
      release[0]?.();
      await sleep(10);
      h.expect(await run(h, one, {})).toMatchObject({ isError: false, output: 'answer 2' });
      h.expect(wire.connects()).toBe(1);
    });

    h.it('an abort after the answer arrived cancels nothing', async () => {
      const wire = recordingServer(() => text('done'));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      const controller = new AbortController();
      h.expect(await run(h, one, {}, controller.signal)).toMatchObject({ isError: false, output: 'done' });
      controller.abort();
      await sleep(10);
      h.expect(wire.cancellations()).toHaveLength(0);
    });
  });

  h.describe('call path: the result is checked in place', () => {
    const malformed: Array<[string, unknown]> = [
      ['content that is not an array', { content: { type: 'text', text: 'x' } }],
      ['a block without a type', { content: [{ text: 'x' }] }],
      ['a block whose type is not a string', { content: [{ type: 7 }] }],
      ['a block that is null', { content: [null] }],
      ['structuredContent that is an array', { content: [], structuredContent: [1, 2] }],
      ['structuredContent that is null', { content: [], structuredContent: null }],
      ['isError that is not a boolean', { content: [], isError: 'yes' }],
    ];
    for (const [what, result] of malformed) {
      h.it(`${what} is not valid MCP: server_error, session kept`, async () => {
        const wire = recordingServer(() => result);
        await using source = mcp({ transport: 'inprocess', server: wire.server });
        const one = pick(await source.tools(), 'one');
        const outcome = await run(h, one, {});
        h.expect(outcome).toMatchObject({ isError: true, reason: 'server_error' });
        h.expect(String(outcome.output)).toContain('not valid MCP');
        h.expect(wire.connects()).toBe(1);
      });
    }

    h.it('absent content is no content; unknown keys and block types are kept', async () => {
      const answers: unknown[] = [{}, { content: [{ type: 'hologram', depth: 3 }, { type: 'text', text: 'a' }], _meta: { x: 1 } }];
      const wire = recordingServer(() => answers.shift());
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      h.expect(await run(h, one, {})).toMatchObject({ isError: false, output: '' });
      h.expect((await run(h, one, {})).output).toEqual([{ type: 'hologram', depth: 3 }, { type: 'text', text: 'a' }]);
    });

    h.it("the structured output is not the server's own object", async () => {
      const shared: Record<string, unknown> = { count: 1 };
      const wire = recordingServer(() => ({ content: [], structuredContent: shared }));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const one = pick(await source.tools(), 'one');
      const result = await run(h, one, {});
      shared['count'] = 2;
      h.expect(result.output).toEqual({ count: 1 });
    });
  });

  h.describe('call path: dispatchTool makes a signal only when a tool reads it', () => {
    h.it('each call without a caller signal gets its own, the same on every read', async () => {
      const seen: AbortSignal[][] = [];
      const set = await resolveToolset([
        tool({ name: 'probe', description: '', parameters: { type: 'object' }, execute: (_input, ctx) => void seen.push([ctx.signal, ctx.signal]) }),
      ]);
      await dispatchTool(set, { id: 'c1', name: 'probe', input: {} });
      await dispatchTool(set, { id: 'c2', name: 'probe', input: {} });
      const [first, second] = seen;
      h.expect(first?.[0]).toBeInstanceOf(AbortSignal);
      h.expect(first?.[0]).toBe(first?.[1]);
      h.expect(first?.[0]).not.toBe(second?.[0]);
      h.expect(second?.[0]?.aborted).toBe(false);
    });

    h.it("a caller signal still cancels an imported tool's call through dispatchTool", async () => {
      const wire = recordingServer(() => new Promise(() => undefined));
      await using source = mcp({ transport: 'inprocess', server: wire.server });
      const set = await resolveToolset([source]);
      const controller = new AbortController();
      const pending = dispatchTool(set, { id: 'c1', name: 'one', input: {} }, { signal: controller.signal });
      await until(() => wire.calls().length === 1, 'the call reached the server');
      controller.abort();
      h.expect(await pending).toMatchObject({ status: 'done', result: { isError: true, reason: 'unavailable' } });
      await until(() => wire.cancellations().length === 1, 'notifications/cancelled reached the server');
    });
  });
}
