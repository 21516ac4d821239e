/**
 * Secrets scrubbed from text that arrives in pieces (a streamed model answer). Scrubbing each
 * piece alone would let a secret split across two pieces through: `sk-ab` in one and
 * `cdef…` in the next are each too short to match. So the scrubber holds back the last `hold`
 * characters and emits only up to a cut no secret straddles; the held tail goes out with the
 * next piece, or at `flush`.
 *
 * A cut is safe when scrubbing the `hold` characters on each side of it together gives what
 * scrubbing them apart gives: a secret (at most `hold` characters long, or found by windows
 * of at most `hold`) across the cut is caught whole together and in part, or not at all,
 * apart. So `redact` may be any function that scrubs secrets locally, the shared redactor's
 * or an adapter's own. When no cut is safe (text thick with secrets) everything is held, and
 * scrubbed whole at `flush`: later, never leaked.
 */

export class StreamScrubber {
  /** Text not emitted yet; it starts at a safe cut (or the start of the stream). */
  private pending = '';

  constructor(
    private readonly redact: (text: string) => string,
    private readonly hold: number,
  ) {}

  /** The scrubbed text that can go out now that `text` came (possibly ''). */
  push(text: string): string {
    this.pending += text;
    let cut = this.pending.length - this.hold;
    // Never between the halves of a surrogate pair: each piece emitted is whole characters.
    if (cut > 0 && isHighSurrogate(this.pending.charCodeAt(cut - 1))) cut -= 1;
    if (cut <= 0) return '';
    const left = this.pending.slice(Math.max(0, cut - this.hold), cut);
    const right = this.pending.slice(cut);
    if (this.redact(left + right) !== this.redact(left) + this.redact(right)) return '';
    const out = this.redact(this.pending.slice(0, cut));
    this.pending = right;
    return out;
  }

  /** Everything still held, scrubbed: the stream ended. */
  flush(): string {
    const out = this.pending === '' ? '' : this.redact(this.pending);
    this.pending = '';
    return out;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
