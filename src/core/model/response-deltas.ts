/**
 * A whole answer as the deltas that stream it: the text, then each tool call opened with its
 * id and name and its input as JSON text, the usage, the end; text and inputs in pieces of
 * `chunkChars` code points. Joined back (assemble.ts) they are the answer again. Used where a
 * stream must be made of a whole answer: `scripted({ stream })`, and a provider that answered
 * a streaming request with one JSON body.
 */
import type { ModelDelta, ModelResponse } from './types.js';

export function* responseDeltas(response: ModelResponse, chunkChars = Infinity): Generator<ModelDelta> {
  for (const text of pieces(response.text, chunkChars)) yield { type: 'text', text };
  for (const [index, call] of response.toolCalls.entries()) {
    yield { type: 'tool_call', index, id: call.id, name: call.name };
    // A raw string input (arguments that did not parse) goes back as the text it was.
    const json = typeof call.input === 'string' ? call.input : (JSON.stringify(call.input ?? {}) ?? '{}');
    for (const inputDelta of pieces(json, chunkChars)) yield { type: 'tool_call', index, inputDelta };
  }
  if (response.usage !== undefined) yield { type: 'usage', ...response.usage };
  yield { type: 'end', stopReason: response.stopReason };
}

function* pieces(text: string, size: number): Generator<string> {
  if (text === '') return;
  if (size === Infinity) {
    yield text;
    return;
  }
  // By code points, so no piece ends inside a surrogate pair.
  const chars = [...text];
  for (let at = 0; at < chars.length; at += size) yield chars.slice(at, at + size).join('');
}
