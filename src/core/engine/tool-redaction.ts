/**
 * A tool's result as the journal, the handle's events and the next model request get it:
 * every string passed through the `redact` the agent's adapter declares, as the adapter's
 * own answers are. An MCP source already scrubs what it sent out of its results; this
 * catches a native tool that returns the provider's key (one that reads the environment, a
 * debugging tool echoing a request). An adapter with no `redact` costs nothing here.
 */
import { ownJson } from '../journal/json-safe.js';
import { redactText } from '../model/redact-answer.js';
import type { ModelAdapter } from '../model/types.js';
import { scrubStrings } from '../secrets/walk.js';
import type { ToolResult } from '../tools/types.js';

/** The cleaner of the adapter's declared `redact`, or undefined when it declares none. */
export function resultCleaner(adapter: ModelAdapter): ((result: ToolResult) => ToolResult) | undefined {
  let redact: unknown;
  try {
    redact = adapter.redact;
  } catch {
    redact = null;
  }
  if (redact === undefined) return undefined;
  // A `redact` that throws or answers no string hides the text it was given (redactText).
  const clean = redactText(adapter);
  // `result` is JSON the journal can hold (jsonResult made it): its text parses back whole.
  return (result) => ownJson(scrubStrings(JSON.parse(JSON.stringify(result)) as ToolResult, clean));
}
