/**
 * Answers inside an SSE stream that the SDK's streamable-http transport would drop. It
 * checks each event against the JSON-RPC message schema and reports one that fails to
 * `onerror`, so a request answered that way waits for its timer (a JSON body fails its
 * request at once instead). This pass rewrites such an event, when it answers a request, to
 * carry the stand-in error response of answer-shape.ts, which the wire client settles at once
 * as the malformed answer it is. Every other event passes through as it came.
 *
 * An event is held until it is complete (the SDK cannot act on part of one either); its size
 * is already capped upstream (body-limit.ts). Lines end at LF, CR or CRLF, as SSE says.
 */
import { markedAnswer } from './answer-shape.js';

/** `response`, with malformed answers in its SSE stream replaced; any other response as it is. */
export function repairSseAnswers(response: Response): Response {
  if (response.body === null || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const events = new EventSplitter();
  const repair = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (const event of events.push(decoder.decode(chunk, { stream: true }))) controller.enqueue(encoder.encode(repaired(event)));
    },
    flush(controller) {
      const tail = decoder.decode();
      for (const event of tail === '' ? [] : events.push(tail)) controller.enqueue(encoder.encode(repaired(event)));
      const { complete, rest } = events.finish();
      if (complete !== undefined) controller.enqueue(encoder.encode(repaired(complete)));
      // An unfinished last event is passed on as it is: the SDK drops it too.
      if (rest !== '') controller.enqueue(encoder.encode(rest));
    },
  });
  return new Response(response.body.pipeThrough(repair), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * One complete event: its text as it came (blank line included), its type, its data lines,
 * and its other lines (id, retry, comments) for a rewrite. `untold` when it had more lines
 * than are worth keeping apart: such an event is passed on as it came, never rewritten.
 */
interface SseEvent {
  readonly text: string;
  readonly type: string;
  readonly data: readonly string[];
  readonly others: readonly string[];
  readonly untold: boolean;
}

/**
 * A JSON-RPC message takes one data line, and a few more fields at most. Past this many
 * lines an event is not looked into: a hostile stream of short lines would otherwise cost
 * an array slot per line on top of its bytes.
 */
const MAX_LINES = 256;

/** The event's text, or, for a malformed answer, the event with its data replaced. */
function repaired(event: SseEvent): string {
  if (event.untold || (event.type !== '' && event.type !== 'message') || event.data.length === 0) return event.text;
  let message: unknown;
  try {
    message = JSON.parse(event.data.join('\n'));
  } catch {
    return event.text;
  }
  const marked = markedAnswer(message);
  if (marked === undefined) return event.text;
  return `${[...event.others, `data: ${JSON.stringify(marked)}`].join('\n')}\n\n`;
}

/** A line's field name and value (one leading space dropped); a comment has the name ''. */
function field(line: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon === 0) return ['', ''];
  if (colon === -1) return [line, ''];
  const value = line.slice(colon + 1);
  return [line.slice(0, colon), value.startsWith(' ') ? value.slice(1) : value];
}

const LINE_END = /\r\n|\r|\n/g;

/**
 * Splits decoded text into complete events, linear in the text: each chunk is scanned once,
 * an event's text is kept as one slice per chunk, and the pieces of a line that spans chunks
 * are joined only when it ends.
 */
class EventSplitter {
  private raw: string[] = [];
  private line: string[] = [];
  private type = '';
  private data: string[] = [];
  private others: string[] = [];
  private lines = 0;
  /** The last chunk ended in CR: an LF starting the next one belongs to that line end. */
  private afterCR = false;
  /** An event completed by that CR, held until the next chunk says whether an LF follows. */
  private held: { text: string; readonly event: Omit<SseEvent, 'text'> } | undefined;

  push(text: string): SseEvent[] {
    const done: SseEvent[] = [];
    let start = 0;
    if (this.afterCR && text.startsWith('\n')) {
      if (this.held !== undefined) this.held.text += '\n';
      else this.raw.push('\n');
      start = 1;
    }
    this.afterCR = false;
    if (this.held !== undefined) done.push({ ...this.held.event, text: this.held.text });
    this.held = undefined;
    let eventFrom = start;
    LINE_END.lastIndex = start;
    for (let end = LINE_END.exec(text); end !== null; end = LINE_END.exec(text)) {
      // A CR that ends the chunk may be the first half of a CRLF: decided by the next chunk.
      const open = end[0] === '\r' && end.index === text.length - 1;
      this.afterCR = open;
      this.line.push(text.slice(start, end.index));
      start = LINE_END.lastIndex;
      const line = this.line.length === 1 ? (this.line[0] as string) : this.line.join('');
      this.line = [];
      if (line !== '') {
        this.take(line);
        continue;
      }
      this.raw.push(text.slice(eventFrom, start));
      eventFrom = start;
      const event = { type: this.type, data: this.data, others: this.others, untold: this.lines > MAX_LINES };
      const eventText = this.raw.join('');
      if (open) this.held = { text: eventText, event };
      else done.push({ ...event, text: eventText });
      this.raw = [];
      this.type = '';
      this.data = [];
      this.others = [];
      this.lines = 0;
    }
    if (start < text.length) this.line.push(text.slice(start));
    if (eventFrom < text.length) this.raw.push(text.slice(eventFrom));
    return done;
  }

  /** What is held at the end of the stream: a complete event, if any, then an unfinished one. */
  finish(): { readonly complete: SseEvent | undefined; readonly rest: string } {
    const complete = this.held === undefined ? undefined : { ...this.held.event, text: this.held.text };
    return { complete, rest: this.raw.join('') };
  }

  private take(line: string): void {
    this.lines += 1;
    if (this.lines > MAX_LINES) return;
    const [name, value] = field(line);
    if (name === 'data') this.data.push(value);
    else {
      if (name === 'event') this.type = value;
      this.others.push(line);
    }
  }
}
