/**
 * Over stdio a misread server error cost the most: -32000 from a server's tool was taken for
 * a closed connection, so the child was killed and respawned (its state lost) on every call.
 * A server's JSON-RPC error is the server talking; the process must stay the same one.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/node/index.js';
import type { SuiteHarness } from '../core/harness.js';
import { pick, run } from '../core/helpers.js';
import { pidsWith, tsServer } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
const SERVER = fileURLToPath(new URL('./fixtures/server-error-stdio.ts', import.meta.url));

describe('server errors over stdio', () => {
  for (const code of [-32000, -32001]) {
    it(`JSON-RPC error ${code} is server_error and the same process serves every call`, async () => {
      const tag = `--tag=${crypto.randomUUID()}`;
      const source = mcp({ transport: 'stdio', ...tsServer(SERVER, String(code), tag), stderr: 'ignore' });
      try {
        const tools = await source.tools();
        const [pid] = pidsWith(tag);
        expect(pid).toBeGreaterThan(0);
        for (let i = 0; i < 3; i += 1) {
          expect(await run(h, pick(tools, 'fail'), {})).toMatchObject({ isError: true, reason: 'server_error' });
        }
        expect(await run(h, pick(tools, 'ok'), {})).toMatchObject({ isError: false, output: 'ok' });
        expect(pidsWith(tag)).toEqual([pid]);
      } finally {
        await source.close();
      }
      expect(pidsWith(tag)).toEqual([]);
    }, 15_000);
  }
});
