/**
 * A stream of deltas with its secrets scrubbed as a whole answer's are (redact-answer.ts),
 * though a secret may arrive split across deltas: text and each tool call's input are
 * scrubbed as continuous texts (secrets/stream-scrub.ts holds back their tails), ids and
 * names, which arrive whole, as they come. Everything held goes out before `end`, so the
 * scrubbed deltas still concatenate to the whole scrubbed answer. The built-in adapters scrub
 * their streams with this and their redactor; the engine scrubs an adapter's stream with it
 * when the adapter declares a `redact`.
 */
import { StreamScrubber } from '../secrets/stream-scrub.js';
import type { ModelDelta } from './types.js';

/**
 * How far back an adapter's own `redact` must be able to look: the longest secret form it
 * finds, split across deltas, is still caught whole. The shared redactor finds secrets by
 * windows of 16 characters, far below; a hand-written one matching whole keys needs their length.
 */
export const REDACT_HOLD = 256;

export class DeltaScrub {
  private readonly text: StreamScrubber;
  private readonly inputs = new Map<number, StreamScrubber>();

  constructor(
    private readonly redact: (text: string) => string,
    private readonly hold: number,
  ) {
    this.text = new StreamScrubber(redact, hold);
  }

  /** What goes out for `delta`: nothing while text is held, the held rest before an `end`. */
  pass(delta: ModelDelta): ModelDelta[] {
    switch (delta.type) {
      case 'text': {
        const text = this.text.push(delta.text);
        return text === '' ? [] : [{ type: 'text', text }];
      }
      case 'tool_call': {
        const first = !this.inputs.has(delta.index);
        const input = this.inputOf(delta.index);
        const inputDelta = delta.inputDelta === undefined ? '' : input.push(delta.inputDelta);
        const out: { type: 'tool_call'; index: number; id?: string; name?: string; inputDelta?: string } = { type: 'tool_call', index: delta.index };
        if (delta.id !== undefined) out.id = this.redact(delta.id);
        if (delta.name !== undefined) out.name = this.redact(delta.name);
        if (inputDelta !== '') out.inputDelta = inputDelta;
        return first || out.id !== undefined || out.name !== undefined || inputDelta !== '' ? [out] : [];
      }
      case 'usage':
        return [delta];
      case 'end':
        return [...this.flushed(), delta];
    }
  }

  private inputOf(index: number): StreamScrubber {
    let scrubber = this.inputs.get(index);
    if (scrubber === undefined) this.inputs.set(index, (scrubber = new StreamScrubber(this.redact, this.hold)));
    return scrubber;
  }

  private flushed(): ModelDelta[] {
    const out: ModelDelta[] = [];
    const text = this.text.flush();
    if (text !== '') out.push({ type: 'text', text });
    for (const [index, input] of this.inputs) {
      const inputDelta = input.flush();
      if (inputDelta !== '') out.push({ type: 'tool_call', index, inputDelta });
    }
    return out;
  }
}
