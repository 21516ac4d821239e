/**
 * `@rulvar/core/engine` loads none of the MCP client (issue 25 item 4): everything the entry
 * reaches, bundled, holds no module of the SDK or zod and none of src/core/mcp but the caller
 * signal's seam, so an engine-only process never pays their import. The entry exports what
 * running and resuming needs, and the same classes as the main entry.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('@rulvar/core/engine', () => {
  for (const entry of ['src/node/engine.ts', 'src/edge/engine.ts']) {
    it(`${entry} reaches no SDK, zod or MCP client module`, async () => {
      const { metafile } = await build({ entryPoints: [entry], absWorkingDir: root, bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', logLevel: 'silent' });
      const inputs = Object.keys(metafile.inputs);
      expect(inputs.filter((file) => /@modelcontextprotocol|[/\\]zod|src\/core\/mcp\/(?!caller-signal)/.test(file))).toEqual([]);
      expect(inputs).toContain('src/core/engine/engine.ts');
    });
  }

  it('exports the engine, the journals and the errors of the main entry', async () => {
    const engine = await import('../../src/node/engine.js');
    const whole = await import('../../src/node/index.js');
    for (const name of ['createEngine', 'defineWorkflow', 'memoryJournal', 'durableObjectJournal', 'fileJournal', 'RulvarError', 'ConfigError', 'JOURNAL_FORMAT'] as const) {
      expect([name, engine[name]]).toEqual([name, whole[name]]);
    }
  });
});
