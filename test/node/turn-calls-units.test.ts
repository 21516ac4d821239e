/**
 * Unit tests of journaledResults (src/core/engine/turn-calls.ts): a replayed turn takes its
 * results straight from the journal only when every call of it is there, in the calls' order.
 * The suites reach it through whole resumes, where a wrong answer here is hidden by
 * runTurnCalls doing the same work the slow way; these pin the shortcut itself.
 */
import { describe, expect, it } from 'vitest';
import { toolEntry } from '../../src/core/engine/entries.js';
import { journaledResults } from '../../src/core/engine/turn-calls.js';
import type { ToolCallPart } from '../../src/core/model/types.js';
import type { PermissionAudit } from '../../src/core/permissions/types.js';

const AUDIT: PermissionAudit = { verdict: 'allow', layer: 'default', advisory: [] };
const calls = (n: number): ToolCallPart[] => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'lookup', input: { i } }));
const done = (n: number) => Array.from({ length: n }, (_, i) => toolEntry('agent', 0, i, { callId: `c${i}`, toolName: 'lookup', isError: false, output: `r${i}` }, AUDIT));

describe('journaledResults', () => {
  it('is every result, in order, when every call of the turn is journaled', () => {
    expect(journaledResults(calls(3), done(3))).toEqual([0, 1, 2].map((i) => ({ callId: `c${i}`, toolName: 'lookup', isError: false, output: `r${i}` })));
  });

  it('is the journaled results themselves, not copies', () => {
    const entries = done(2);
    const results = journaledResults(calls(2), entries);
    expect(results?.[0]).toBe(entries[0]?.result);
    expect(results?.[1]).toBe(entries[1]?.result);
  });

  it('is undefined when nothing is journaled, when fewer results than calls are, or when one in the middle is missing', () => {
    expect(journaledResults(calls(2), undefined)).toBeUndefined();
    expect(journaledResults(calls(3), done(2))).toBeUndefined();
    const holed = [...done(3)];
    delete holed[1];
    expect(journaledResults(calls(3), holed)).toBeUndefined();
    expect(journaledResults(calls(3), [undefined, ...done(3).slice(1)])).toBeUndefined();
  });

  it('is empty for a turn of no calls, and takes only as many results as there are calls', () => {
    expect(journaledResults([], [])).toEqual([]);
    expect(journaledResults(calls(1), done(2))).toHaveLength(1);
  });
});
