/**
 * examples/anthropic.ts and examples/openai.ts as a user runs them (node + tsx, importing the
 * built package). Without a key they must say how to run them and exit 0, never touching the
 * network; with one they would call the real provider, which no test here does.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The examples import dist/ through the package's own exports: `npm test` builds it first.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

describe.runIf(enabled)('provider examples without a key', () => {
  it.each([
    ['anthropic.ts', 'ANTHROPIC_API_KEY'],
    ['openai.ts', 'OPENAI_API_KEY'],
  ])('%s prints "skipped: set %s" and exits 0', async (file, variable) => {
    const env = { ...process.env };
    delete env['ANTHROPIC_API_KEY'];
    delete env['OPENAI_API_KEY'];
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', `examples/${file}`], { cwd: root, env, timeout: 30_000 });
    expect(stdout.trim()).toBe(`skipped: set ${variable} to run this example against the ${file === 'anthropic.ts' ? 'Anthropic' : 'OpenAI'} API`);
  }, 40_000);
});
