/**
 * A tool result as the text both wire formats carry: strings pass as they are, anything else
 * (MCP content parts, structured output, an error's payload) as JSON, which models read well.
 */
import type { ToolResult } from '../core/tools/types.js';

export function toolOutputText(result: ToolResult): string {
  const { output } = result;
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    // Results are journaled JSON already; this only guards a host's hand-built history.
    return String(output);
  }
}

/** Tool-call arguments as a JSON string; a raw string (unparseable arguments) goes back unchanged. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}
