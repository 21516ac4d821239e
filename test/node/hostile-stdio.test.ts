/**
 * The hostile kit over real child processes: the bounds and guards on a second transport, and
 * the misbehaviours only a process can show (framing, garbage, crashes, exits, hangs).
 * Each case asserts class, code and time to failure, and that no child is left behind.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { expectConfigError, expectSourceError, pick, run, until } from '../core/helpers.js';
import { pidsWith, tsServer } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
const HOSTILE_STDIO = fileURLToPath(new URL('./fixtures/hostile-stdio.ts', import.meta.url));
const SLACK_MS = 3_000; // process start-up under tsx is part of every case here

/** A source over a hostile child, tagged so the test can find its processes. */
function hostile(mode: string, options: Record<string, unknown> = {}) {
  const tag = `--tag=${crypto.randomUUID()}`;
  const source = mcp({ transport: 'stdio', ...tsServer(HOSTILE_STDIO, mode, tag), stderr: 'ignore', ...options });
  return { source, tag };
}

async function refusesTyped(
  mode: string,
  options: Record<string, unknown>,
  kind: 'config' | 'source',
  code: string,
  withinMs: number,
): Promise<string> {
  const { source, tag } = hostile(mode, options);
  const started = Date.now();
  try {
    const expectTyped = kind === 'config' ? expectConfigError : expectSourceError;
    const message = await expectTyped(h, () => source.tools(), code);
    expect(Date.now() - started).toBeLessThan(withinMs);
    return message;
  } finally {
    await source.close();
    expect(pidsWith(tag)).toEqual([]);
  }
}

describe('hostile servers over stdio', () => {
  it('cursor echo (discovery.cursor_echo)', async () => {
    await refusesTyped('behaviour:cursorEcho', {}, 'config', 'discovery.cursor_echo', SLACK_MS);
  });

  it('unique empty pages forever stop at maxPages (discovery.max_pages)', async () => {
    await refusesTyped('behaviour:emptyPagesForever', { maxPages: 30 }, 'config', 'discovery.max_pages', SLACK_MS);
  });

  it('an endlessly growing list stops at maxTools (discovery.max_tools)', async () => {
    await refusesTyped('behaviour:growingForever=40', { maxTools: 100 }, 'config', 'discovery.max_tools', SLACK_MS);
  });

  it('a hung last page fails at the discovery deadline (discovery.deadline)', async () => {
    const started = Date.now();
    await refusesTyped('behaviour:hungLastPage', { timeouts: { discoveryMs: 1_500, listMs: 60_000 } }, 'config', 'discovery.deadline', 1_500 + SLACK_MS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it('a schema over the byte cap (schema.too_large)', async () => {
    await refusesTyped('behaviour:schemaOverCap=5000', { maxSchemaBytes: 1_000 }, 'config', 'schema.too_large', SLACK_MS);
  });

  it('a hung call is a timeout error result at callMs', async () => {
    const { source, tag } = hostile('behaviour:hungCall', { timeouts: { callMs: 300 } });
    try {
      const stall = pick(await source.tools(), 'stall');
      const started = Date.now();
      expect(await run(h, stall, {})).toMatchObject({ isError: true, reason: 'timeout' });
      expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  });

  it('one message over the 10 MB framing cap ends the connection (source.unavailable)', async () => {
    const message = await refusesTyped('oversize', {}, 'source', 'source.unavailable', 10_000);
    expect(message).toContain('maximum size');
  });

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
  });

  it('a crash mid-sweep (source.unavailable, naming the exit)', async () => {
    const message = await refusesTyped('crash-mid-sweep', {}, 'source', 'source.unavailable', SLACK_MS);
    expect(message).toContain('tools/list');
  });

  it('an exit during the handshake (source.unavailable, naming the exit code)', async () => {
    const message = await refusesTyped('exit-handshake', {}, 'source', 'source.unavailable', SLACK_MS);
    expect(message).toContain('code 4');
  });

  it('a hung handshake fails at connectMs and the child is released (connect.timeout)', async () => {
    const { source, tag } = hostile('hang-handshake', { timeouts: { connectMs: 1_500 } });
    try {
      const started = Date.now();
      const pending = expectConfigError(h, () => source.tools(), 'connect.timeout');
      // The child really ran, so "released" below is something the refusal did.
      await until(() => pidsWith(tag).length > 0, 'the hung child to start');
      const message = await pending;
      expect(Date.now() - started).toBeLessThan(1_500 + 6_000);
      expect(message).toContain('connectMs = 1500 ms');
      // Released by the refusal itself, before the host calls close().
      expect(pidsWith(tag)).toEqual([]);
    } finally {
      await source.close();
      expect(pidsWith(tag)).toEqual([]);
    }
  });
});
