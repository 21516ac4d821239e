/**
 * The hostile kit over real child processes: the bounds and guards on a second transport, and
 * the misbehaviours only a process can show (framing, garbage, crashes, exits, hangs).
 * Each case asserts class and code, and that no child is left behind. A time bound is timed
 * from the request it bounds (the wire timeout that request carried is checked too), not from
 * tools(): starting a server under tsx takes seconds on a busy machine. The exception is
 * discoveryMs, which counts from tools() and so covers the start; its case leaves room for it.
 * A case with no time bound can only fail by waiting for the SDK's 60 s request timeout,
 * which its own timeout, far shorter, catches.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WireClient } from '../../src/core/mcp/wire-client.js';
import { mcp } from '../../src/node/index.js';
import { StdioTransport } from '../../src/node/stdio.js';
import type { SuiteHarness } from '../core/harness.js';
import { expectConfigError, expectHonoured, expectSourceError, pick, run, until, within } from '../core/helpers.js';
import { pidsWith, tsServer } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node', wires: [] } as SuiteHarness;
const HOSTILE_STDIO = fileURLToPath(new URL('./fixtures/hostile-stdio.ts', import.meta.url));
/** Starting a server under tsx, a few times over, on a busy machine; far below the SDK's 60 s. */
const START_MS = 10_000;

afterEach(() => void vi.restoreAllMocks());

interface Sent {
  readonly method: string;
  /** The wire timeout the request carried (undefined: the SDK's 60 s). */
  readonly timeout: number | undefined;
  readonly at: number;
  /** When it was answered or gave up; unset while pending. */
  settledAt?: number;
}

/** Every request the importer sends from now on. */
function recordRequests(): Sent[] {
  const sent: Sent[] = [];
  const call = WireClient.prototype.call;
  vi.spyOn(WireClient.prototype, 'call').mockImplementation(function (this: WireClient, ...args: Parameters<typeof call>) {
    const entry: Sent = { method: args[0].method, timeout: args[2]?.timeout, at: Date.now() };
    sent.push(entry);
    const pending = call.apply(this, args);
    pending.finally(() => (entry.settledAt = Date.now())).catch(() => undefined);
    return pending;
  });
  return sent;
}

/** A source over a hostile child, tagged so the test can find its processes. */
function hostile(mode: string, options: Record<string, unknown> = {}) {
  const tag = `--tag=${crypto.randomUUID()}`;
  const source = mcp({ transport: 'stdio', ...tsServer(HOSTILE_STDIO, mode, tag), stderr: 'ignore', ...options });
  return { source, tag };
}

async function refusesTyped(mode: string, options: Record<string, unknown>, kind: 'config' | 'source', code: string): Promise<string> {
  const { source, tag } = hostile(mode, options);
  try {
    const expectTyped = kind === 'config' ? expectConfigError : expectSourceError;
    return await expectTyped(h, () => source.tools(), code);
  } finally {
    await source.close();
    expect(pidsWith(tag)).toEqual([]);
  }
}

describe('hostile servers over stdio', () => {
  it('cursor echo (discovery.cursor_echo)', async () => {
    await refusesTyped('behaviour:cursorEcho', {}, 'config', 'discovery.cursor_echo');
  }, START_MS);

  it('unique empty pages forever stop at maxPages (discovery.max_pages)', async () => {
    await refusesTyped('behaviour:emptyPagesForever', { maxPages: 30 }, 'config', 'discovery.max_pages');
  }, START_MS);

  it('an endlessly growing list stops at maxTools (discovery.max_tools)', async () => {
    await refusesTyped('behaviour:growingForever=40', { maxTools: 100 }, 'config', 'discovery.max_tools');
  }, START_MS);

  it('a hung last page fails at the discovery deadline (discovery.deadline)', async () => {
    const sent = recordRequests();
    // discoveryMs counts from tools(), the server's start included, so it leaves room for that.
    const discoveryMs = 8_000;
    const startedAt = Date.now();
    await refusesTyped('behaviour:hungLastPage', { timeouts: { discoveryMs, listMs: 60_000 } }, 'config', 'discovery.deadline');
    const pages = sent.filter((r) => r.method === 'tools/list');
    expect(pages).toHaveLength(3);
    const [first, , last] = pages;
    if (first === undefined || last === undefined) throw new Error('no pages');
    // Every page carries what is left of the budget since tools() began, not listMs...
    expect(first.timeout).toBeLessThanOrEqual(discoveryMs - (first.at - startedAt) + 2); // Date.now() read twice
    expect(last.timeout).toBeLessThanOrEqual(discoveryMs - (last.at - startedAt) + 2);
    // ...so the hung last page gives up at the deadline.
    expectHonoured(h, startedAt, last.settledAt ?? Infinity, discoveryMs);
  }, START_MS + within(8_000));

  it('a schema over the byte cap (schema.too_large)', async () => {
    await refusesTyped('behaviour:schemaOverCap=5000', { maxSchemaBytes: 1_000 }, 'config', 'schema.too_large');
  }, START_MS);

  it('a hung call is a timeout error result at callMs', async () => {
    const sent = recordRequests();
    const { source, tag } = hostile('behaviour:hungCall', { timeouts: { callMs: 600 } });
    try {
      const stall = pick(await source.tools(), 'stall');
      const started = Date.now();
      expect(await run(h, stall, {})).toMatchObject({ isError: true, reason: 'timeout' });
      expectHonoured(h, started, Date.now(), 600);
      expect(sent.filter((r) => r.method === 'tools/call').map((r) => r.timeout)).toEqual([600]);
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  }, START_MS + within(600));

  it('one message over the 10 MB framing cap ends the connection (source.unavailable)', async () => {
    const message = await refusesTyped('oversize', {}, 'source', 'source.unavailable');
    expect(message).toContain('maximum size');
  }, START_MS + 10_000);

  it('a call answered with an array result is a server_error at once, not a wait for callMs; the session stays', async () => {
    const sent = recordRequests();
    const { source, tag } = hostile('array-result', { timeouts: { callMs: 30_000 } });
    try {
      const one = pick(await source.tools(), 'one');
      const result = await run(h, one, {});
      expect(result).toMatchObject({ isError: true, reason: 'server_error' });
      expect(String(result.output)).toContain('a result that is an array, not an object');
      const call = sent.find((r) => r.method === 'tools/call');
      expect((call?.settledAt ?? Infinity) - (call?.at ?? 0)).toBeLessThan(5_000);
      expect(await run(h, one, {})).toMatchObject({ isError: false, output: 'raw ok' });
      expect(sent.filter((r) => r.method === 'initialize')).toHaveLength(1);
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  }, START_MS + 10_000);

  it('garbage lines on stdout are skipped; the import still works', async () => {
    const { source, tag } = hostile('garbage');
    try {
      const tools = await source.tools();
      expect(tools.map((t) => t.name)).toEqual(['one', 'two']);
      expect(await run(h, pick(tools, 'one'), {})).toMatchObject({ isError: false, output: 'raw ok' });
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  }, START_MS);

  it('a crash mid-sweep (source.unavailable, naming the exit)', async () => {
    const message = await refusesTyped('crash-mid-sweep', {}, 'source', 'source.unavailable');
    expect(message).toContain('tools/list');
  }, START_MS);

  it('an exit during the handshake (source.unavailable, naming the exit code)', async () => {
    const message = await refusesTyped('exit-handshake', {}, 'source', 'source.unavailable');
    expect(message).toContain('code 4');
  }, START_MS);

  it('a hung handshake fails at connectMs and the child is released (connect.timeout)', async () => {
    const sent = recordRequests();
    const released: number[] = [];
    const close = StdioTransport.prototype.close;
    vi.spyOn(StdioTransport.prototype, 'close').mockImplementation(function (this: StdioTransport) {
      released.push(Date.now());
      return close.call(this);
    });
    const { source, tag } = hostile('hang-handshake', { timeouts: { connectMs: 1_500 } });
    try {
      const started = Date.now();
      const pending = expectConfigError(h, () => source.tools(), 'connect.timeout');
      // The child really ran, so "released" below is something the refusal did.
      await until(() => pidsWith(tag).length > 0, 'the hung child to start');
      const message = await pending;
      // The initialize request carried connectMs, and the child's release began when it ran
      // out, however long the child took to start.
      expect(sent.map((r) => [r.method, r.timeout])).toEqual([['initialize', 1_500]]);
      expectHonoured(h, started, released[0] ?? Infinity, 1_500);
      expect(message).toContain('connectMs = 1500 ms');
      // Released by the refusal itself, before the host calls close().
      expect(pidsWith(tag)).toEqual([]);
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  }, START_MS + within(1_500));
});
