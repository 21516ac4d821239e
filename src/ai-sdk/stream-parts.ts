/**
 * The parts of a `doStream` stream as ModelDelta (model/types.ts), one part at a time:
 * `text-delta` as text; a tool call as the deltas of its index (in order of first appearance),
 * its id and name first, then its input as JSON text; `finish` as usage and the end. The
 * complete `tool-call` part is the authority on a call's input: what its input deltas did not
 * carry yet is sent from it, and a call whose deltas disagree with it is refused. Parts that
 * carry nothing the engine keeps (reasoning, sources, metadata, pings, parts of later
 * versions) are skipped, but still counted: a stream of them alone ends at `maxStreamParts`.
 */
import type { ModelDelta } from '../core/model/types.js';
import { stringField } from './answer.js';
import type { BoundedCall } from './bounded-call.js';
import { finishOf, usageOf } from './finish.js';

interface OpenCall {
  readonly index: number;
  /** The input text sent so far; undefined when the deltas are not JSON (v4's `inputEncoding: 'text'`). */
  sent: string | undefined;
  done: boolean;
}

export interface StreamBounds {
  readonly maxAnswerChars: number;
  readonly maxStreamParts: number;
}

export class StreamParts {
  private readonly calls = new Map<string, OpenCall>();
  private parts = 0;
  private chars = 0;
  /** Set by the `finish` part; nothing after it is read. */
  finished = false;

  constructor(
    private readonly call: BoundedCall,
    private readonly bounds: StreamBounds,
  ) {}

  /** The deltas one part means; throws typed on a malformed part, an `error` part or a bound. */
  next(part: unknown): ModelDelta[] {
    this.parts += 1;
    if (this.parts > this.bounds.maxStreamParts) throw this.call.protocol(`streamed more than maxStreamParts (${this.bounds.maxStreamParts}) parts`);
    if (typeof part !== 'object' || part === null) throw this.call.protocol('streamed a part that is not an object');
    const { type } = part as { type?: unknown };
    switch (type) {
      case 'text-delta':
        return [{ type: 'text', text: this.count(stringField(part, 'delta', this.call)) }];
      case 'tool-input-start':
        return this.start(part);
      case 'tool-input-delta':
        return this.inputDelta(part);
      case 'tool-call':
        return this.complete(part);
      case 'finish':
        return this.finish(part);
      case 'error':
        throw this.call.failure((part as { error?: unknown }).error);
      default:
        return [];
    }
  }

  private start(part: object): ModelDelta[] {
    if ((part as { providerExecuted?: unknown }).providerExecuted === true) return [];
    const id = this.count(stringField(part, 'id', this.call));
    const name = this.count(stringField(part, 'toolName', this.call));
    if (this.calls.has(id)) throw this.call.protocol(`streamed a second start of tool call ${JSON.stringify(id.slice(0, 64))}`);
    const encoding = (part as { inputEncoding?: unknown }).inputEncoding;
    const open: OpenCall = { index: this.calls.size, sent: encoding === 'text' ? undefined : '', done: false };
    this.calls.set(id, open);
    return [{ type: 'tool_call', index: open.index, id, name }];
  }

  private inputDelta(part: object): ModelDelta[] {
    const id = stringField(part, 'id', this.call);
    const delta = this.count(stringField(part, 'delta', this.call));
    const open = this.calls.get(id);
    // A delta of a provider-executed call (never started here), or text-encoded input, waits for its tool-call part.
    if (open === undefined || open.sent === undefined || open.done) return [];
    open.sent += delta;
    return delta === '' ? [] : [{ type: 'tool_call', index: open.index, inputDelta: delta }];
  }

  private complete(part: object): ModelDelta[] {
    if ((part as { providerExecuted?: unknown }).providerExecuted === true) return [];
    const id = stringField(part, 'toolCallId', this.call);
    const name = stringField(part, 'toolName', this.call);
    const raw = (part as { input?: unknown }).input;
    const input = typeof raw === 'string' ? raw : JSON.stringify(raw ?? {});
    let open = this.calls.get(id);
    const deltas: ModelDelta[] = [];
    if (open === undefined) {
      this.count(id);
      this.count(name);
      open = { index: this.calls.size, sent: '', done: false };
      this.calls.set(id, open);
      deltas.push({ type: 'tool_call', index: open.index, id, name });
    }
    if (open.done) throw this.call.protocol(`streamed tool call ${JSON.stringify(id.slice(0, 64))} twice`);
    open.done = true;
    const sent = open.sent ?? '';
    // Deltas that spell the same JSON another way (spacing) said all there is; anything else is a contradiction.
    if (!input.startsWith(sent)) {
      if (sameJson(sent, input)) return deltas;
      throw this.call.protocol(`streamed input deltas for tool call ${JSON.stringify(id.slice(0, 64))} that its final input does not begin with`);
    }
    const rest = this.count(input.slice(sent.length));
    if (rest !== '') deltas.push({ type: 'tool_call', index: open.index, inputDelta: rest });
    return deltas;
  }

  private finish(part: object): ModelDelta[] {
    const calls = this.calls.size;
    const finish = finishOf((part as { finishReason?: unknown }).finishReason, calls);
    if ('incomplete' in finish) throw this.call.incomplete(`finished its stream with reason "${finish.incomplete}": the answer is incomplete`);
    this.finished = true;
    const usage = usageOf((part as { usage?: unknown }).usage);
    const end: ModelDelta = { type: 'end', stopReason: finish.stopReason };
    return usage === undefined ? [end] : [{ type: 'usage', ...usage }, end];
  }

  private count(text: string): string {
    this.chars += text.length;
    if (this.chars > this.bounds.maxAnswerChars) throw this.call.protocol(`streamed more than maxAnswerChars (${this.bounds.maxAnswerChars}) characters of text and tool input`);
    return text;
  }
}

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
