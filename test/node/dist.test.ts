/**
 * Checks the package as built (dist/), through its own exports map, because bundlers change
 * code and a source-only test would not notice. Runs when RULVAR_TEST_DIST=1, which `npm test`
 * sets right after building; a bare `vitest run` skips it rather than test a stale dist/.
 */
import { describe, expect, it } from 'vitest';
import type * as Entry from '../../src/edge/index.js';

const enabled = process.env['RULVAR_TEST_DIST'] === '1';

// A specifier in a variable keeps tsc from resolving the package's own name, which only has
// types once dist/ exists; typecheck must pass on a fresh checkout too.
const load = (specifier: string): Promise<typeof Entry> => import(specifier);

describe.runIf(enabled)('built package (dist/)', () => {
  it('resolves `@rulvar/core` to the node entry under the node condition', async () => {
    const root = await load('@rulvar/core');
    const node = await load('@rulvar/core/node');
    expect(root).toBe(node);
  });

  it('exports the same names from the node and edge entries', async () => {
    const node = await load('@rulvar/core/node');
    const edge = await load('@rulvar/core/edge');
    expect(Object.keys(edge).sort()).toEqual(Object.keys(node).sort());
  });

  it('shares one copy of the core between entries, so instanceof agrees', async () => {
    const node = await load('@rulvar/core/node');
    const edge = await load('@rulvar/core/edge');
    expect(edge.ConfigError).toBe(node.ConfigError);
    expect(new edge.ConfigError('config.missing_key', 'x')).toBeInstanceOf(node.RulvarError);
  });

  it('loads the testing entry', async () => {
    await expect(load('@rulvar/core/testing')).resolves.toBeDefined();
  });
});
