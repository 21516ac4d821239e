/**
 * An agent whose end is journaled, taken whole from the journal on resume. Replaying it turn
 * by turn would request nothing and run nothing either (every turn and result is there); it
 * would only rebuild the history, which most workflows never read. So the result is made at
 * once and its history is built the first time it is read, from the same entries and in the
 * same form as a live agent's. A journal that ends an agent without holding each of its turns
 * and results is not taken this way: the agent is replayed, and what is missing is paid for.
 */
import type { JournalEntry } from '../journal/entries.js';
import type { Message, ToolCallPart } from '../model/types.js';
import type { AgentEntries } from './run-log.js';
import type { AgentResult } from './types.js';

type Ended = Extract<JournalEntry, { type: 'agent:end' }>;

/** The result of the ended agent, or undefined when its entries are incomplete. */
export function endedAgentResult(ended: Ended, entries: AgentEntries, prompt: string, toolsetHash: string): AgentResult | undefined {
  if (!complete(ended, entries)) return undefined;
  const result = { text: ended.text, toolsetHash, turns: ended.turns } as AgentResult;
  // A data property once read (or written), like a live agent's history.
  const settle = (history: Message[]): Message[] => {
    Object.defineProperty(result, 'history', { value: history, writable: true, enumerable: true, configurable: true });
    return history;
  };
  Object.defineProperty(result, 'history', {
    enumerable: true,
    configurable: true,
    get: () => settle(historyOf(entries, ended.turns, prompt)),
    set: settle,
  });
  return result;
}

/** Each turn journaled; each call of every turn but the last answered; the last one asking for none. */
function complete(ended: Ended, { turns, tools }: AgentEntries): boolean {
  // turns.length is a whole number: an end naming any other count (0 included) is refused below.
  if (turns.length !== ended.turns) return false;
  for (let turn = 0; turn < ended.turns - 1; turn += 1) {
    const calls = turns[turn]?.response.toolCalls;
    const results = tools[turn];
    if (calls === undefined || calls.length === 0 || results === undefined || results.length !== calls.length) return false;
    for (let index = 0; index < calls.length; index += 1) if (results[index] === undefined) return false;
  }
  return turns[ended.turns - 1]?.response.toolCalls.length === 0;
}

/** The history runAgent builds, message for message: frozen, as every history is. */
function historyOf({ turns, tools }: AgentEntries, count: number, prompt: string): Message[] {
  const history: Message[] = [Object.freeze({ role: 'user', text: prompt })];
  for (let turn = 0; turn < count; turn += 1) {
    const response = turns[turn]?.response;
    if (response === undefined) break;
    const toolCalls: ToolCallPart[] = response.toolCalls;
    history.push(Object.freeze({ role: 'assistant', text: response.text, toolCalls }));
    if (toolCalls.length === 0) break;
    const results = (tools[turn] ?? []).map((entry) => entry.result);
    Object.freeze(results);
    history.push(Object.freeze({ role: 'tool', results }));
  }
  return history;
}
