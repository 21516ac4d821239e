/**
 * Server-sent events as the WHATWG HTML standard defines their parsing (the format both
 * providers stream in), fed bytes as they arrive in chunks split anywhere: lines end at CRLF,
 * LF or CR (a CRLF split across two chunks is one line end), `:` lines are comments, `data`
 * lines join with `\n`, a blank line dispatches, an event cut off by the end of the stream is
 * dropped. Lines are cut at the byte level (CR and LF never occur inside a UTF-8 sequence) and
 * decoded whole, strictly: a stream that is not UTF-8 is refused, as a body that is not is.
 * What one event may take is bounded in bytes, comments and field names included, so a
 * server can make the parser hold no more than `maxEventBytes` (plus one chunk).
 */

import { joinBytes } from '../core/bytes.js';

export interface SseEvent {
  /** The `event` field, `message` when the event named none. */
  readonly event: string;
  readonly data: string;
  /** Set on the one pseudo-event of a server that answered a streaming request with a whole JSON body (post-stream.ts): `data` is that body. */
  readonly whole?: true;
}

/** Thrown by `push` for an event past its bound, or bytes that are not UTF-8. */
export class SseRefusal extends Error {
  constructor(readonly reason: 'too_large' | 'undecodable') {
    super(reason === 'too_large' ? 'an event past maxEventBytes' : 'bytes that are not UTF-8');
  }
}

const CR = 0x0d;
const LF = 0x0a;

export class SseParser {
  /** The line being read: its bytes so far, in the chunks they came in. */
  private line: Uint8Array[] = [];
  private lineBytes = 0;
  /** Bytes of the complete lines of the event being read. */
  private eventBytes = 0;
  private type = '';
  private data: string[] = [];
  /** The last chunk ended in CR: an LF first in the next one ends no second line. */
  private skipLF = false;
  private first = true;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(private readonly maxEventBytes: number) {}

  /** The events `chunk` completes, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.skipLF && chunk[0] === LF) start = 1;
    this.skipLF = false;
    for (let at = start; at < chunk.length; at += 1) {
      const byte = chunk[at];
      if (byte !== CR && byte !== LF) continue;
      this.take(chunk.subarray(start, at));
      this.endLine(events);
      if (byte === CR) {
        if (at + 1 === chunk.length) this.skipLF = true;
        else if (chunk[at + 1] === LF) at += 1;
      }
      start = at + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
    return events;
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.lineBytes += bytes.length;
    if (this.eventBytes + this.lineBytes > this.maxEventBytes) throw new SseRefusal('too_large');
    // A copy: the chunk's buffer is the reader's, and may be reused for the next one.
    this.line.push(bytes.slice());
  }

  private endLine(events: SseEvent[]): void {
    let text = this.decoded();
    this.eventBytes += this.lineBytes + 1;
    this.line = [];
    this.lineBytes = 0;
    if (this.first) {
      this.first = false;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (text === '') return this.dispatch(events);
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    // `id` and `retry` steer reconnection, which a model answer never does: ignored.
  }

  private dispatch(events: SseEvent[]): void {
    if (this.data.length > 0) events.push({ event: this.type === '' ? 'message' : this.type, data: this.data.join('\n') });
    this.type = '';
    this.data = [];
    this.eventBytes = 0;
  }

  private decoded(): string {
    const bytes = this.line.length === 1 ? (this.line[0] as Uint8Array) : joinBytes(this.line, this.lineBytes);
    try {
      return this.decoder.decode(bytes);
    } catch {
      throw new SseRefusal('undecodable');
    }
  }
}

/** An event's data as a JSON object, or undefined when it is not one (the mappers refuse it typed). */
export function parsedObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
