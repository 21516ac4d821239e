/**
 * Unit tests for src/core/mcp/modern/era.ts, the revision a connection speaks, with a wire
 * client of the test's own: for each `protocol` ('2025-11-25', '2026-07-28', 'auto'), each
 * answer to `server/discover` (a discover result, each modern error, a legacy server's error
 * or HTTP status, silence, a closed connection) and each answer to `initialize`, which era is
 * chosen or what the refusal says; the probe's bound; the hint that makes 'auto' probe once.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EraRetry, openEra, type EraOptions } from '../../src/core/mcp/modern/era.js';
import type { ModernLink } from '../../src/core/mcp/modern/link.js';
import { ServerErrorResponse, UnsupportedProtocolError, type WireClient } from '../../src/core/mcp/wire-client.js';

type Answer = unknown;

/** A client whose discover calls get `discovers` in turn and whose handshake gets `handshake`. */
function setup(discovers: readonly Answer[], handshake: Answer = 'ok') {
  const log: string[] = [];
  const timeouts: unknown[] = [];
  let probes = 0;
  const settle = (answer: Answer) => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer));
  const client = {
    connect: () => (log.push('connect'), Promise.resolve()),
    close: async () => {
      log.push('close');
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push('closed');
    },
    call: (_request: unknown, _schema: unknown, options: unknown) => {
      log.push('discover');
      timeouts.push(options);
      probes += 1;
      return settle(discovers[probes - 1]);
    },
    handshake: (_transport: unknown, ms: unknown) => (log.push(`initialize ${String(ms)}`), settle(handshake === 'ok' ? undefined : handshake)),
  } as unknown as WireClient;
  const link = { on: false, observe: () => log.push('observe') } as unknown as ModernLink;
  const open = (options: Partial<EraOptions>, withLink = true) =>
    openEra(client, {} as Transport, withLink ? link : undefined, { protocol: 'auto', hint: undefined, http: true, timeoutMs: 1_000, ...options });
  return { open, log, timeouts, link };
}

const modern = (listChanged?: boolean) => ({ supportedVersions: ['2026-07-28'], capabilities: listChanged === undefined ? {} : { tools: { listChanged } } });
const unsupported = (supported: unknown) => new ServerErrorResponse(-32022, 'Unsupported protocol version', { supported });

describe("'2025-11-25'", () => {
  it('runs initialize alone, exactly as before', async () => {
    const { open, log } = setup([]);
    expect(await open({ protocol: '2025-11-25' }, false)).toEqual({ era: 'legacy' });
    expect(log).toEqual(['connect', 'initialize 1000']);
  });

  it('a -32022 to initialize is worded with what the server offered and what to set', async () => {
    const { open, log } = setup([], unsupported(['2026-07-28']));
    await expect(open({ protocol: '2025-11-25' }, false)).rejects.toThrow(
      new UnsupportedProtocolError(`the server refused initialize (protocol 2025-11-25): it offered "2026-07-28"; set protocol to 'auto' or '2026-07-28' to speak the revisions it offers`),
    );
    expect(log.at(-1)).toBe('closed');
  });

  it('the same refusal in the body of an HTTP 400, as the 2025 HTTP wire reports it', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32022, message: 'x', data: { supported: ['2026-07-28'] } } });
    const { open } = setup([], new StreamableHTTPError(400, `Error POSTing to endpoint: ${body}`));
    await expect(open({ protocol: '2025-11-25' }, false)).rejects.toThrow(/^the server refused initialize \(protocol 2025-11-25\): it offered "2026-07-28"; set protocol/);
  });

  it('a failed connection is closed before the refusal is thrown', async () => {
    const { open, log } = setup([], new ServerErrorResponse(-32600, 'no'));
    const closing = open({ protocol: '2025-11-25' }, false).catch(() => log.push('refused'));
    await closing;
    expect(log.slice(-3)).toEqual(['close', 'closed', 'refused']);
  });

  it('any other failure of initialize is handed on as it came, the client closed', async () => {
    for (const error of [new StreamableHTTPError(400, 'Bad Request: not json'), new StreamableHTTPError(500, '{"error":{"code":-32022}}'), new ServerErrorResponse(-32600, 'no')]) {
      const { open, log } = setup([], error);
      await expect(open({ protocol: '2025-11-25' }, false)).rejects.toBe(error);
      expect(log.at(-1)).toBe('closed');
    }
    const offeringNothing = setup([], new ServerErrorResponse(-32022, 'x', 'garbage'));
    await expect(offeringNothing.open({ protocol: '2025-11-25' }, false)).rejects.toThrow('it offered none it would name;');
  });
});

describe("'2026-07-28'", () => {
  it('a discover result offering it is modern, with listChanged as the server declared', async () => {
    for (const [result, listChanged] of [[modern(true), true], [modern(false), false], [modern(), false]] as const) {
      const { open, log, link } = setup([result]);
      expect(await open({ protocol: '2026-07-28' })).toEqual({ era: 'modern', listChanged });
      expect([log, link.on]).toEqual([['connect', 'observe', 'discover'], true]);
    }
  });

  it('a discover result without it is refused, naming what was offered (at most 32)', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `v${i}`);
    const { open } = setup([{ supportedVersions: many, capabilities: {} }]);
    // The refusal itself, not wrapped as a legacy server's answer.
    await expect(open({ protocol: '2026-07-28' })).rejects.toThrow(
      new UnsupportedProtocolError(`the server does not speak 2026-07-28: it offered ${many.slice(0, 32).map((v) => `"${v}"`).join(', ')}`),
    );
  });

  it('a -32022 offering it is retried once; a second is refused, naming the offer', async () => {
    expect(await setup([unsupported(['2026-07-28']), modern()]).open({ protocol: '2026-07-28' })).toEqual({ era: 'modern', listChanged: false });
    await expect(setup([unsupported(['2026-07-28']), unsupported(['2026-07-28'])]).open({ protocol: '2026-07-28' })).rejects.toThrow(
      'the server does not speak 2026-07-28: it offered "2026-07-28"',
    );
    await expect(setup([unsupported(['2025-11-25'])]).open({ protocol: '2026-07-28' })).rejects.toThrow('the server does not speak 2026-07-28: it offered "2025-11-25"');
  });

  it('a modern server refusing the request itself is its error, never a fallback', async () => {
    for (const code of [-32020, -32021]) {
      const error = new ServerErrorResponse(code, 'refused');
      await expect(setup([error]).open({ protocol: 'auto' })).rejects.toBe(error);
    }
  });

  it("a legacy server's answer is refused, saying what to set", async () => {
    await expect(setup([new ServerErrorResponse(-32601, 'Method not found')]).open({ protocol: '2026-07-28' })).rejects.toThrow(
      "the server did not answer server/discover as a 2026-07-28 server (Method not found); if it speaks 2025-11-25 only, set protocol to 'auto' or '2025-11-25'",
    );
  });

  it('the probe waits the whole timeout, on stdio too', async () => {
    const { open, timeouts } = setup([modern()]);
    await open({ protocol: '2026-07-28', http: false, timeoutMs: 1_000 });
    expect(timeouts).toEqual([{ timeout: 1_000 }]);
  });
});

describe("'auto'", () => {
  it('falls back to initialize on any other JSON-RPC error, an answer that is no discover result, and HTTP 400, 404 or 405', async () => {
    const zod = Object.assign(new Error('bad'), { name: 'ZodError', issues: [] });
    for (const error of [new ServerErrorResponse(-32601, 'no'), zod, new StreamableHTTPError(400, 'x'), new StreamableHTTPError(404, 'x'), new StreamableHTTPError(405, 'x')]) {
      const { open, log, link } = setup([error]);
      expect(await open({})).toEqual({ era: 'legacy' });
      expect([log, link.on]).toEqual([['connect', 'observe', 'discover', 'initialize 1000'], false]);
    }
  });

  it('over HTTP, silence or another status is an outage, not a legacy server', async () => {
    for (const error of [new McpError(ErrorCode.RequestTimeout, 'timed out'), new StreamableHTTPError(500, 'x'), new StreamableHTTPError(401, 'x')]) {
      await expect(setup([error]).open({})).rejects.toBe(error);
    }
  });

  it('on stdio, silence for half of connectMs is a legacy server; initialize has the rest', async () => {
    const { open, timeouts, log } = setup([new McpError(ErrorCode.RequestTimeout, 'timed out')]);
    expect(await open({ http: false, timeoutMs: 1_000 })).toEqual({ era: 'legacy' });
    expect([timeouts, log.at(-1)]).toEqual([[{ timeout: 500 }], 'initialize 1000']);
    const unbounded = setup([modern()]);
    await unbounded.open({ http: false, timeoutMs: undefined });
    expect(unbounded.timeouts).toEqual([{}]);
  });

  it('on stdio, a server that closes on the probe is started again for initialize', async () => {
    const failed = setup([new McpError(ErrorCode.ConnectionClosed, 'closed')]).open({ http: false });
    await expect(failed).rejects.toBeInstanceOf(EraRetry);
    await expect(failed).rejects.toMatchObject({ era: 'legacy', message: 'the server closed the connection on server/discover' });
    const overHttp = new McpError(ErrorCode.ConnectionClosed, 'closed');
    await expect(setup([overHttp]).open({ http: true })).rejects.toBe(overHttp);
    const other = new Error('a request failed');
    await expect(setup([other]).open({ http: false })).rejects.toBe(other);
  });

  it('a discover result or -32022 offering only 2025-11-25 falls back; offering neither is refused naming both', async () => {
    expect(await setup([{ supportedVersions: ['2025-11-25'], capabilities: {} }]).open({})).toEqual({ era: 'legacy' });
    expect(await setup([unsupported(['2025-11-25'])]).open({})).toEqual({ era: 'legacy' });
    await expect(setup([unsupported(['2024-11-05'])]).open({})).rejects.toThrow('the server does not speak 2026-07-28 or 2025-11-25: it offered "2024-11-05"');
    await expect(setup([{ supportedVersions: ['2024-11-05'], capabilities: {} }]).open({})).rejects.toThrow(
      new UnsupportedProtocolError('the server does not speak 2026-07-28 or 2025-11-25: it offered "2024-11-05"'),
    );
    await expect(setup([{ supportedVersions: [], capabilities: {} }]).open({})).rejects.toThrow('it offered none it would name');
  });

  it('a hint of legacy skips the probe; a modern-only server then says so and is probed again', async () => {
    const { open, log } = setup([], unsupported(['2026-07-28']));
    const failed = open({ hint: 'legacy' });
    await expect(failed).rejects.toMatchObject({ name: 'EraRetry', era: 'modern', message: 'the server no longer speaks 2025-11-25' });
    expect(log).toEqual(['connect', 'observe', 'initialize 1000', 'close', 'closed']);
    await expect(setup([], unsupported(['2025-06-18'])).open({ hint: 'legacy' })).rejects.toThrow(
      /^the server refused initialize \(protocol 2025-11-25\): it offered "2025-06-18"$/,
    );
  });

  it('a hint of modern probes as usual; without a link (in process) there is no probe', async () => {
    expect(await setup([modern(true)]).open({ hint: 'modern' })).toEqual({ era: 'modern', listChanged: true });
    const { open, log } = setup([]);
    expect(await open({}, false)).toEqual({ era: 'legacy' });
    expect(log).toEqual(['connect', 'initialize 1000']);
  });
});
