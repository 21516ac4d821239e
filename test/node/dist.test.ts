/**
 * The built package, as a user's import resolves it: every entry exports the same names, the
 * bare specifier picks the Node build under Node, and the edge build refuses stdio typed.
 * (`npm test` builds first and sets RULVAR_TEST_DIST=1; a bare `vitest run` skips this file.)
 */
import process from 'node:process';
import { describe, expect, it } from 'vitest';

// Only when npm test has just built dist/: a stale or missing build must not be tested.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const load = async () => ({
  root: await import('@rulvar/core'),
  node: await import('@rulvar/core/node'),
  edge: await import('@rulvar/core/edge'),
});
const entries = enabled ? await load() : (undefined as unknown as Awaited<ReturnType<typeof load>>);

describe.runIf(enabled)('dist entries', () => {
  it('every entry exports the same names', () => {
    const names = (m: object) => Object.keys(m).sort();
    expect(names(entries.edge)).toEqual(names(entries.node));
    expect(names(entries.root)).toEqual(names(entries.node));
    expect(names(entries.node)).toEqual(expect.arrayContaining(['mcp', 'ConfigError', 'RulvarError', 'SourceError', 'toToolResult']));
  });

  it('under Node, the bare specifier is the Node build (stdio available)', () => {
    expect(() => entries.root.mcp({ transport: 'stdio', command: 'x' })).not.toThrow();
    expect(entries.root.mcp).toBe(entries.node.mcp);
  });

  it('the edge build refuses stdio with config.transport_unavailable', () => {
    let error: unknown;
    try {
      entries.edge.mcp({ transport: 'stdio', command: 'x' });
    } catch (e) {
      error = e;
    }
    expect(entries.node.ConfigError.is(error)).toBe(true);
    expect((error as { code: string }).code).toBe('config.transport_unavailable');
  });

  it('errors from one entry are recognised by the guards of another', () => {
    const error = new entries.edge.ConfigError('config.missing_key', 'x');
    expect(entries.node.ConfigError.is(error)).toBe(true);
    expect(entries.node.RulvarError.is(error)).toBe(true);
  });
});
