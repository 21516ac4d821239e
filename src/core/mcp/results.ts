/**
 * Maps an MCP `tools/call` result onto what lands in history (spec/runtime.md, "The
 * canonical tool result"): structured content wins; all-text content is one string; a mix
 * keeps text as text parts and every other block (image, audio, resource, resource_link, and
 * types this code has never heard of) as its own typed part, in order.
 */
import { MAX_SERVER_TEXT_CHARS, cutText } from '../errors.js';
import { toolError } from '../tools/tool-error.js';
import type { ContentPart } from '../tools/types.js';
import type { ContentBlock as Block, LenientCallToolResult } from './call-result-schema.js';

const NO_BLOCKS: readonly Block[] = Object.freeze([]);

export function mapCallResult(result: LenientCallToolResult, hasOutputSchema: boolean): unknown {
  const content = result.content ?? NO_BLOCKS;
  if (result.isError === true) {
    return toolError('server_error', errorText(content));
  }
  // A copy of the top level, as a parse would have made: an in-process server hands over its
  // own object, which must not change under the history after the call (nor be changed by
  // whoever holds the result). Spread defines keys as own data, so `__proto__` stays a key.
  if (result.structuredContent !== undefined) return { ...result.structuredContent };
  if (hasOutputSchema) {
    // The tool promised structured output and sent none: nothing to validate, so nothing valid.
    return toolError('invalid_output', 'the tool declares an outputSchema but returned no structuredContent');
  }
  return mapContent(content);
}

/** Text-only content becomes one string (blocks concatenated as they are); else parts. */
export function mapContent(content: readonly Block[]): string | ContentPart[] {
  if (content.every(isText)) return content.map((block) => block.text).join('');
  return content.map((block) => (isText(block) ? { type: 'text', text: block.text } : { ...block }));
}

/** The server's own words for an error (cut to a bounded length), so the model sees them. */
function errorText(content: readonly Block[]): string {
  const text = content.filter(isText).map((block) => block.text).join('');
  if (text.length > 0) return cutText(text, MAX_SERVER_TEXT_CHARS);
  const kinds = content.map((block) => block.type).join(', ');
  return kinds.length > 0 ? `the tool reported an error (content: ${kinds})` : 'the tool reported an error';
}

function isText(block: Block): block is Block & { text: string } {
  return block.type === 'text' && typeof block['text'] === 'string';
}
