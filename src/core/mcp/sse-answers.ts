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

/** One complete event: its text as it came (blank line included) and its lines. */
interface SseEvent {
  readonly text: string;
  readonly lines: readonly string[];
}

/** The event's text, or, for a malformed answer, the event with its data replaced. */
function repaired(event: SseEvent): string {
  let type = '';
  const data: string[] = [];
  for (const line of event.lines) {
    const [name, value] = field(line);
    if (name === 'event') type = value;
    else if (name === 'data') data.push(value);
  }
  if ((type !== '' && type !== 'message') || data.length === 0) return event.text;
  let message: unknown;
  try {
    message = JSON.parse(data.join('\n'));
  } catch {
    return event.text;
  }
  const marked = markedAnswer(message);
  if (marked === undefined) return event.text;
  const kept = event.lines.filter((line) => field(line)[0] !== 'data');
  return `${[...kept, `data: ${JSON.stringify(marked)}`].join('\n')}\n\n`;
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
 * Splits decoded text into complete events, linear in the text: each chunk is scanned once
 * and the pieces of an unfinished line or event are joined only when it completes.
 */
class EventSplitter {
  /** The current line's pieces, and the current event's lines and raw text pieces. */
  private line: string[] = [];
  private lines: string[] = [];
  private raw: string[] = [];
  /** The last chunk ended in CR: an LF starting the next one belongs to that line end. */
  private afterCR = false;
  /** An event completed by that CR, held until the next chunk says whether an LF follows. */
  private held: { text: string; readonly lines: readonly string[] } | undefined;

  push(text: string): SseEvent[] {
    const done: SseEvent[] = [];
    let start = 0;
    if (this.afterCR && text.startsWith('\n')) {
      if (this.held !== undefined) this.held.text += '\n';
      else this.raw.push('\n');
      start = 1;
    }
    this.afterCR = false;
    if (this.held !== undefined) done.push(this.held);
    this.held = undefined;
    LINE_END.lastIndex = start;
    for (let end = LINE_END.exec(text); end !== null; end = LINE_END.exec(text)) {
      // A CR that ends the chunk may be the first half of a CRLF: decided by the next chunk.
      const open = end[0] === '\r' && end.index === text.length - 1;
      this.afterCR = open;
      this.line.push(text.slice(start, end.index));
      this.raw.push(text.slice(start, LINE_END.lastIndex));
      start = LINE_END.lastIndex;
      const line = this.line.join('');
      this.line = [];
      if (line !== '') {
        this.lines.push(line);
        continue;
      }
      const event = { text: this.raw.join(''), lines: this.lines };
      if (open) this.held = event;
      else done.push(event);
      this.lines = [];
      this.raw = [];
    }
    if (start < text.length) {
      this.line.push(text.slice(start));
      this.raw.push(text.slice(start));
    }
    return done;
  }

  /** What is held at the end of the stream: a complete event, if any, then an unfinished one. */
  finish(): { readonly complete: SseEvent | undefined; readonly rest: string } {
    return { complete: this.held, rest: this.raw.join('') };
  }
}
