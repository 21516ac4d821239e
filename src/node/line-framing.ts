/**
 * Newline-delimited framing for the stdio transport, linear in what arrives. The SDK's
 * ReadBuffer concatenates everything it holds with each new chunk and searches the whole of it
 * again for a line end, so one long line costs time quadratic in its length (a 10 MB line took
 * 6-8 s of CPU here, blocking the host's event loop meanwhile). This keeps the pieces of the
 * unfinished line apart and looks at each byte once.
 */
const LF = 0x0a;

export class LineFraming {
  private pieces: Buffer[] = [];
  private held = 0;

  constructor(private readonly maxLineBytes: number) {}

  /**
   * The lines `chunk` completes, as text without their line end (nor a CR before it). Throws
   * once a line grows past maxLineBytes: from there on the stream cannot be framed.
   */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      const tail = chunk.subarray(start, end);
      this.hold(tail.length);
      const line = this.pieces.length === 0 ? tail : Buffer.concat([...this.pieces, tail]);
      this.clear();
      lines.push(withoutCR(line.toString('utf8')));
      start = end + 1;
    }
    if (start < chunk.length) {
      this.hold(chunk.length - start);
      this.pieces.push(chunk.subarray(start));
    }
    return lines;
  }

  clear(): void {
    this.pieces = [];
    this.held = 0;
  }

  private hold(bytes: number): void {
    this.held += bytes;
    if (this.held > this.maxLineBytes) {
      this.clear();
      throw new Error(`the server sent a line longer than the maximum size of ${this.maxLineBytes} bytes`);
    }
  }
}

function withoutCR(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
