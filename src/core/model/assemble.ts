/**
 * A streamed answer put back together (model/types.ts, `ModelDelta`): text deltas joined,
 * tool-call deltas joined by `index` (their `inputDelta`s are one JSON text), the latest usage,
 * the `end` delta's stop reason. Deltas come from an adapter, so each is checked and copied
 * (`check`) before it counts, and the stream is bounded: by its number of deltas, the
 * characters it carries and the tool calls it opens. What `response()` gives is raw, for the
 * engine to redact and check exactly as a `generate` answer (model-call.ts).
 */
import type { ModelDelta, StopReason, ToolCallPart } from './types.js';

export interface StreamBounds {
  /** Deltas one answer may take; a model sending one token per delta stays far below. */
  readonly maxDeltas: number;
  /** Characters of text, tool-call ids, names and inputs together. */
  readonly maxChars: number;
  /** Tool calls one answer may open; their indexes run from 0 to this, exclusive. */
  readonly maxToolCalls: number;
}

/** About 32 MiB of characters, as the built-in adapters bound a whole answer; a million deltas. */
export const STREAM_BOUNDS: StreamBounds = { maxDeltas: 1_000_000, maxChars: 32 * 1024 * 1024, maxToolCalls: 4096 };

const STOP_REASONS = new Set<unknown>(['end', 'tool_calls', 'max_tokens', 'refused']);

interface OpenCall {
  id?: string;
  name?: string;
  input: string[];
}

export class DeltaAssembler {
  private readonly text: string[] = [];
  private readonly calls = new Map<number, OpenCall>();
  /** Each call's id and name as the stream sent them (what `calls` holds may be scrubbed). */
  private readonly named = new Map<number, { id?: string; name?: string }>();
  private usage: { inputTokens: number; outputTokens: number } | undefined;
  private stop: StopReason | undefined;
  private deltas = 0;
  private chars = 0;
  ended = false;

  constructor(private readonly bounds: StreamBounds = STREAM_BOUNDS) {}

  /** `value` as a delta of the engine's own (frozen, plain), counted against the bounds; throws when it is none or one too many. */
  check(value: unknown): ModelDelta {
    if ((this.deltas += 1) > this.bounds.maxDeltas) throw new RangeError(`the stream sent more than ${this.bounds.maxDeltas} deltas`);
    const delta = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const type = delta.type;
    if (type === 'text') return Object.freeze({ type, text: this.counted(delta.text, 'a text delta without a string text') });
    if (type === 'usage') {
      const { inputTokens, outputTokens } = delta;
      if (!isCount(inputTokens) || !isCount(outputTokens)) throw new TypeError('the stream sent a usage delta without two token counts');
      return Object.freeze({ type, inputTokens, outputTokens });
    }
    if (type === 'end') {
      const stopReason = delta.stopReason;
      if (!STOP_REASONS.has(stopReason)) throw new TypeError(`the stream ended with an unknown stopReason`);
      return Object.freeze({ type, stopReason: stopReason as StopReason });
    }
    if (type === 'tool_call') return this.toolCall(delta);
    throw new TypeError('the stream sent a delta of no known type');
  }

  /** Adds a checked delta (or a scrubbed copy of one) to the answer. */
  add(delta: ModelDelta): void {
    switch (delta.type) {
      case 'text':
        this.text.push(delta.text);
        return;
      case 'usage':
        this.usage = { inputTokens: delta.inputTokens, outputTokens: delta.outputTokens };
        return;
      case 'end':
        this.stop = delta.stopReason;
        this.ended = true;
        return;
      case 'tool_call': {
        let call = this.calls.get(delta.index);
        if (call === undefined) this.calls.set(delta.index, (call = { input: [] }));
        if (call.id === undefined && delta.id !== undefined) call.id = delta.id;
        if (call.name === undefined && delta.name !== undefined) call.name = delta.name;
        if (delta.inputDelta !== undefined) call.input.push(delta.inputDelta);
      }
    }
  }

  /** The answer as `generate` would have given it; unparseable input stays the raw text, for the schema check to refuse. */
  response(): unknown {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ id: call.id, name: call.name, input: parsedInput(call.input.join('')) }) as ToolCallPart);
    const stopReason = this.stop ?? (toolCalls.length > 0 ? 'tool_calls' : 'end');
    return { text: this.text.join(''), toolCalls, stopReason, ...(this.usage === undefined ? {} : { usage: this.usage }) };
  }

  private toolCall(delta: Record<string, unknown>): ModelDelta {
    const { index, id, name, inputDelta } = delta;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= this.bounds.maxToolCalls) {
      throw new TypeError(`the stream sent a tool_call delta whose index is not an integer from 0 to ${this.bounds.maxToolCalls - 1}`);
    }
    const copy: { type: 'tool_call'; index: number; id?: string; name?: string; inputDelta?: string } = { type: 'tool_call', index };
    let known = this.named.get(index);
    if (known === undefined) this.named.set(index, (known = {}));
    if (id !== undefined) known.id = copy.id = this.once(id, known.id, 'id');
    if (name !== undefined) known.name = copy.name = this.once(name, known.name, 'name');
    if (inputDelta !== undefined) copy.inputDelta = this.counted(inputDelta, 'a tool_call delta whose inputDelta is not a string');
    return Object.freeze(copy);
  }

  /** A call's id or name is given once: a second, different one would make the call two. */
  private once(value: unknown, before: string | undefined, what: string): string {
    const text = this.counted(value, `a tool_call delta whose ${what} is not a string`);
    if (before !== undefined && before !== text) throw new TypeError(`the stream sent a second, different ${what} for one tool call`);
    return text;
  }

  private counted(value: unknown, refusal: string): string {
    if (typeof value !== 'string') throw new TypeError(`the stream sent ${refusal}`);
    if ((this.chars += value.length) > this.bounds.maxChars) throw new RangeError(`the stream sent more than ${this.bounds.maxChars} characters`);
    return value;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function parsedInput(json: string): unknown {
  // No input deltas at all, or only whitespace: a call without arguments.
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}
