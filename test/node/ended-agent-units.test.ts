/**
 * Unit tests of endedAgentResult (src/core/engine/ended-agent.ts): an agent whose end is
 * journaled is taken whole from the journal on resume, but only when the journal holds every
 * one of its turns and each result of every turn but the last, the last asking for no call.
 * Anything less is undefined (the agent is replayed and pays for what is missing). Its
 * history is built only when read, the same frozen messages a live agent's would be, and is
 * then a plain data property.
 */
import { describe, expect, it } from 'vitest';
import { endedAgentResult } from '../../src/core/engine/ended-agent.js';
import { entry } from '../../src/core/engine/entries.js';
import type { AgentEntries } from '../../src/core/engine/run-log.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import type { ModelResponse } from '../../src/core/model/types.js';

type Of<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

const response = (text: string, calls: number): ModelResponse => ({
  text,
  toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: 't', input: { i } })),
  stopReason: calls > 0 ? 'tool_calls' : 'end',
});
const turn = (n: number, text: string, calls: number) => entry({ type: 'turn', agent: 'a', turn: n, response: response(text, calls) }) as Of<'turn'>;
const tool = (n: number, index: number) =>
  entry({ type: 'tool', agent: 'a', turn: n, index, result: { callId: `c${index}`, toolName: 't', isError: false, output: `r${n}.${index}` }, audit: { verdict: 'allow', layer: 'default', advisory: [] } }) as Of<'tool'>;
const ended = (turns: number) => entry({ type: 'agent:end', agent: 'a', text: 'all done', turns }) as Of<'agent:end'>;

/** Two turns of two calls each, then a last turn asking for none: three turns in all. */
function whole(): AgentEntries {
  return { turns: [turn(0, 'first', 2), turn(1, 'second', 2), turn(2, 'all done', 0)], tools: [[tool(0, 0), tool(0, 1)], [tool(1, 0), tool(1, 1)]] };
}

describe('endedAgentResult', () => {
  it('a whole journal: the result at once, its text, turns and toolset hash from the journal', () => {
    const result = endedAgentResult(ended(3), whole(), 'go', 'hash-1');
    expect(result).toBeDefined();
    expect([result!.text, result!.turns, result!.toolsetHash]).toEqual(['all done', 3, 'hash-1']);
  });

  it('an agent of one turn asking for nothing is whole too', () => {
    const result = endedAgentResult(ended(1), { turns: [turn(0, 'just text', 0)], tools: [] }, 'go', 'h');
    expect(result?.history).toEqual([{ role: 'user', text: 'go' }, { role: 'assistant', text: 'just text', toolCalls: [] }]);
  });

  it('the history is what a live agent builds: prompt, then each turn and its results, frozen', () => {
    const result = endedAgentResult(ended(3), whole(), 'the prompt', 'h')!;
    const history = result.history;
    expect(history).toEqual([
      { role: 'user', text: 'the prompt' },
      { role: 'assistant', text: 'first', toolCalls: response('first', 2).toolCalls },
      { role: 'tool', results: [tool(0, 0).result, tool(0, 1).result] },
      { role: 'assistant', text: 'second', toolCalls: response('second', 2).toolCalls },
      { role: 'tool', results: [tool(1, 0).result, tool(1, 1).result] },
      { role: 'assistant', text: 'all done', toolCalls: [] },
    ]);
    for (const message of history) expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen((history[2] as { results: unknown[] }).results)).toBe(true);
  });

  it('history is built once, on first read, then a plain writable, enumerable data property', () => {
    const result = endedAgentResult(ended(3), whole(), 'go', 'h')!;
    expect(Object.getOwnPropertyDescriptor(result, 'history')?.get).toBeTypeOf('function');
    expect(Object.keys(result)).toContain('history');
    const first = result.history;
    expect(result.history).toBe(first);
    const read = Object.getOwnPropertyDescriptor(result, 'history')!;
    expect([read.get, read.writable, read.enumerable, read.configurable]).toEqual([undefined, true, true, true]);
    // Written before it is read: the written value is kept, as on a live agent's result.
    const other = endedAgentResult(ended(3), whole(), 'go', 'h')!;
    const mine = [{ role: 'user' as const, text: 'replaced' }];
    other.history = mine;
    expect(other.history).toBe(mine);
    expect(Object.getOwnPropertyDescriptor(other, 'history')?.value).toBe(mine);
  });

  it('a journal short of anything is not taken whole: undefined', () => {
    const cases: [string, number, () => AgentEntries][] = [
      ['turns not a positive integer (0)', 0, whole],
      ['turns not a positive integer (1.5)', 1.5, whole],
      ['fewer turns journaled than the end says', 4, whole],
      ['more turns journaled than the end says', 2, whole],
      ['a turn missing in the middle', 3, () => ({ ...whole(), turns: [turn(0, 'first', 2), undefined, turn(2, 'all done', 0)] })],
      ['an earlier turn that asked for no call', 3, () => ({ ...whole(), turns: [turn(0, 'first', 0), turn(1, 'second', 2), turn(2, 'all done', 0)] })],
      ['the results of a turn missing', 3, () => ({ ...whole(), tools: [[tool(0, 0), tool(0, 1)], undefined] })],
      ['one result fewer than the calls', 3, () => ({ ...whole(), tools: [[tool(0, 0)], [tool(1, 0), tool(1, 1)]] })],
      ['a hole among the results', 3, () => ({ ...whole(), tools: [[tool(0, 0), undefined as unknown as Of<'tool'>], [tool(1, 0), tool(1, 1)]] })],
      ['a last turn that still asks for calls', 3, () => ({ ...whole(), turns: [turn(0, 'first', 2), turn(1, 'second', 2), turn(2, 'more', 1)] })],
      ['no turn at all, the end saying 0', 0, () => ({ turns: [], tools: [] })],
      ['the last turn missing', 3, () => ({ ...whole(), turns: [turn(0, 'first', 2), turn(1, 'second', 2), undefined] })],
      ['an earlier turn with no call and no result', 3, () => ({ turns: [turn(0, 'first', 0), turn(1, 'second', 2), turn(2, 'all done', 0)], tools: [[], [tool(1, 0), tool(1, 1)]] })],
      ['more results than calls', 3, () => ({ ...whole(), tools: [[tool(0, 0), tool(0, 1), tool(0, 2)], [tool(1, 0), tool(1, 1)]] })],
    ];
    for (const [what, turns, entries] of cases) expect({ what, result: endedAgentResult(ended(turns), entries(), 'go', 'h') }).toEqual({ what, result: undefined });
  });
});
