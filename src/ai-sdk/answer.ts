/**
 * A `doGenerate` result as a ModelResponse: the text parts joined, the tool calls the client
 * is to run (a provider-executed call is the provider's business and is left out), the finish
 * reason and usage mapped (finish.ts). Reasoning, sources, files and parts a later version
 * adds carry nothing the engine keeps and are skipped. The result is the host's object:
 * what is read of it is checked, and the text and tool input it holds are bounded by
 * `maxAnswerChars` before any of it is copied.
 */
import type { ModelResponse, ToolCallPart } from '../core/model/types.js';
import type { BoundedCall } from './bounded-call.js';
import { finishOf, usageOf } from './finish.js';

export function fromGenerateResult(value: unknown, call: BoundedCall, maxAnswerChars: number): ModelResponse {
  const result = (typeof value === 'object' && value !== null ? value : undefined) as { content?: unknown; finishReason?: unknown; usage?: unknown } | undefined;
  const content = result?.content;
  if (!Array.isArray(content)) throw call.protocol('answered a result without a content array');
  const texts: string[] = [];
  const toolCalls: ToolCallPart[] = [];
  let size = 0;
  const count = (text: string) => {
    size += text.length;
    if (size > maxAnswerChars) throw call.protocol(`answered more than maxAnswerChars (${maxAnswerChars}) characters of text and tool input`);
    return text;
  };
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) throw call.protocol('answered a content part that is not an object');
    const { type } = part as { type?: unknown };
    if (type === 'text') texts.push(count(stringField(part, 'text', call)));
    else if (type === 'tool-call' && (part as { providerExecuted?: unknown }).providerExecuted !== true) {
      const id = count(stringField(part, 'toolCallId', call));
      const name = count(stringField(part, 'toolName', call));
      const input = (part as { input?: unknown }).input;
      toolCalls.push({ id, name, input: typeof input === 'string' ? parseInput(count(input)) : (input ?? {}) });
    }
  }
  const finish = finishOf(result?.finishReason, toolCalls.length);
  if ('incomplete' in finish) throw call.incomplete(`finished with reason "${finish.incomplete}": the answer is incomplete`);
  const usage = usageOf(result?.usage);
  return { text: texts.join(''), toolCalls, stopReason: finish.stopReason, ...(usage === undefined ? {} : { usage }) };
}

export function stringField(part: object, field: string, call: BoundedCall): string {
  const value = (part as Record<string, unknown>)[field];
  if (typeof value !== 'string') throw call.protocol(`answered a ${String((part as { type?: unknown }).type)} part without a string ${field}`);
  return value;
}

/**
 * Tool input as the provider's JSON text encodes it. Empty text is `{}` (some models send it
 * for no arguments); text that does not parse goes on as the raw string, so the engine's
 * schema check refuses it as `invalid_input` and the model sees why on its next turn.
 */
export function parseInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
