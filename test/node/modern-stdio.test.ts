/**
 * The era negotiation on stdio, against real servers: the v2 SDK's serveStdio (default: both
 * eras; `legacy: 'reject'`: modern only) and a 2025-only server (the v1 workbench) that
 * answers the probe, ignores it or exits on it. What each `protocol` setting does with each,
 * what reaches the server, what the probe costs, and list changes on a listen subscription.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchTool, mcp, resolveToolset, type McpToolSource } from '../../src/node/index.js';
import { sleep } from '../core/helpers.js';
import { tsServer } from './process-helpers.js';

const MODERN = fileURLToPath(new URL('./fixtures/modern-stdio.ts', import.meta.url));
const LEGACY = fileURLToPath(new URL('./fixtures/legacy-probe.ts', import.meta.url));
const STARTUP_MS = 20_000;

/** A stdio source over a fixture; `received` is what the modern fixture says reached it. */
function start(script: string, args: string[], options: Record<string, unknown>) {
  const received: string[] = [];
  const source = mcp({ transport: 'stdio', ...tsServer(script, ...args), stderr: (chunk) => received.push(...chunk.split('\n').filter(Boolean)), ...options });
  return { source, received };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rulvar-stdio-era-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

for (const legacy of ['serve', 'reject'] as const) {
  describe(`serveStdio (legacy: '${legacy}')`, () => {
    for (const protocol of ['2025-11-25', 'auto', '2026-07-28'] as const) {
      const refused = legacy === 'reject' && protocol === '2025-11-25';
      it(`protocol '${protocol}' ${refused ? 'is refused naming what the server offers' : 'lists and calls'}`, async () => {
        const { source, received } = start(MODERN, [`--legacy=${legacy}`], { protocol });
        try {
          if (refused) {
            await expect(source.tools()).rejects.toMatchObject({ code: 'source.protocol', message: expect.stringMatching(/offered "2026-07-28"; set protocol to 'auto'/) });
            return;
          }
          const toolset = await resolveToolset([source]);
          expect(toolset.tools.map((t) => t.name).sort()).toEqual(['add_note', 'list_notes']);
          const outcome = await dispatchTool(toolset, { id: '1', name: 'add_note', input: { title: 't', body: 'b' } });
          expect(outcome).toMatchObject({ status: 'done', result: { isError: false, output: { title: 't', count: 1 } } });
          // The child reports what it received on its own channel, which may trail its answer.
          await expect.poll(() => received, { timeout: 5_000 }).toEqual(
            protocol === '2025-11-25'
              ? ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']
              : ['server/discover', 'subscriptions/listen', 'tools/list', 'tools/call'],
          );
        } finally {
          await source.close();
        }
      }, STARTUP_MS);
    }

    for (const drift of ['rekey', 'refuse'] as const) {
      it(`a change announced on the subscription ${drift === 'rekey' ? 're-keys the next snapshot' : 'refuses under drift: refuse'}`, async () => {
        const { source } = start(MODERN, [`--legacy=${legacy}`, '--ttl=60000', '--grow-after=1500'], { protocol: '2026-07-28', drift });
        try {
          expect(await source.tools()).toHaveLength(2);
          for (let i = 0; ; i += 1) {
            if (i > 200) throw new Error('the change never landed');
            await sleep(50);
            const seen = await source.tools().catch((error: unknown) => error);
            if (drift === 'refuse' && seen instanceof Error) {
              expect(seen).toMatchObject({ code: 'source.drift_refused' });
              break;
            }
            if (Array.isArray(seen) && seen.length === 3) {
              expect(drift).toBe('rekey');
              break;
            }
          }
        } finally {
          await source.close();
        }
      }, STARTUP_MS);
    }
  });
}

describe('a 2025-only stdio server', () => {
  const starts = () => path.join(dir, `starts-${Math.random().toString(36).slice(2)}`);
  const count = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;

  it("answering the probe: 'auto' falls back to initialize on the same process", async () => {
    const file = starts();
    const { source } = start(LEGACY, ['--on-discover=answer', `--starts=${file}`], { protocol: 'auto' });
    try {
      expect((await source.tools()).map((t) => t.name)).toContain('add_note');
      expect(await count(file)).toBe(1);
    } finally {
      await source.close();
    }
  }, STARTUP_MS);

  // The probe waits half of connectMs: initialize reaches the server that long after the probe
  // was sent (the server is up by then), not sooner and not a second later (the next case's bound).
  for (const connectMs of [12_000, 8_000]) {
    it(`ignoring the probe: with connectMs ${connectMs}, 'auto' falls back after ${connectMs / 2} ms`, async () => {
      const { source, received } = start(LEGACY, ['--on-discover=ignore'], { protocol: 'auto', timeouts: { connectMs } });
      try {
        const sent = Date.now();
        await source.tools();
        const initialize = Number(received.find((line) => line.endsWith(' initialize'))?.split(' ')[0]);
        expect(initialize - sent).toBeGreaterThanOrEqual(connectMs / 2 - 50);
        expect(initialize - sent).toBeLessThan(connectMs / 2 + 1_500);
      } finally {
        await source.close();
      }
    }, STARTUP_MS);
  }

  it("exiting on the probe: 'auto' starts it again and runs initialize", async () => {
    const file = starts();
    const { source } = start(LEGACY, ['--on-discover=exit', `--starts=${file}`], { protocol: 'auto' });
    try {
      expect((await source.tools()).map((t) => t.name)).toContain('add_note');
      expect(await count(file)).toBe(2);
    } finally {
      await source.close();
    }
  }, STARTUP_MS);

  it("'2026-07-28' is refused naming the server's answer and the settings that would work", async () => {
    const { source } = start(LEGACY, ['--on-discover=answer'], { protocol: '2026-07-28' });
    try {
      await expect(source.tools()).rejects.toMatchObject({
        code: 'source.protocol',
        message: expect.stringMatching(/did not answer server\/discover as a 2026-07-28 server \(.*Method not found\); if it speaks 2025-11-25 only, set protocol to 'auto' or '2025-11-25'/),
      });
    } finally {
      await source.close();
    }
  }, STARTUP_MS);

  it("'auto' probes once per source: a reconnect after the server exits goes straight to initialize", async () => {
    const file = starts();
    const source: McpToolSource = mcp({ transport: 'stdio', ...tsServer(LEGACY, '--on-discover=exit', `--starts=${file}`), protocol: 'auto', stderr: 'ignore' });
    try {
      await source.tools();
      expect(await count(file)).toBe(2);
      await source.close();
      await source.tools();
      // close() resets the source, but what it learned of the server stays: no second probe.
      expect(await count(file)).toBe(3);
    } finally {
      await source.close();
    }
  }, STARTUP_MS * 2);
});
