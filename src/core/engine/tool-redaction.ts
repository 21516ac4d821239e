/**
 * A tool's result as the journal, the handle's events and the next model request get it:
 * every string passed through the `redact` of every adapter the engine has, the agent's own
 * first, as the adapter's own answers are. An MCP source already scrubs what it sent out of
 * its results; this catches a native tool that returns a provider's key (one that reads the
 * environment, a debugging tool echoing a request), whichever adapter that key belongs to: a
 * key of one provider must reach neither the journal nor another provider. Adapters with no
 * `redact` cost nothing here.
 */
import { ownJson } from '../journal/json-safe.js';
import { declaredRedact, redactText } from '../model/redact-answer.js';
import type { ModelAdapter } from '../model/types.js';
import { scrubStrings } from '../secrets/walk.js';
import type { ToolResult } from '../tools/types.js';

/** The cleaner of the `redact`s these adapters declare, or undefined when none declares one. */
export function resultCleaner(adapters: Iterable<ModelAdapter>): ((result: ToolResult) => ToolResult) | undefined {
  const cleans: ((text: string) => string)[] = [];
  for (const adapter of adapters) {
    // A `redact` that throws or answers no string hides the text it was given (redactText).
    if (declaredRedact(adapter) !== undefined) cleans.push(redactText(adapter));
  }
  if (cleans.length === 0) return undefined;
  const clean = cleans.length === 1 ? (cleans[0] as (text: string) => string) : (text: string) => cleans.reduce((out, one) => one(out), text);
  // `result` is JSON the journal can hold (jsonResult made it): its text parses back whole.
  return (result) => ownJson(scrubStrings(JSON.parse(JSON.stringify(result)) as ToolResult, clean));
}
