/**
 * A "sweeping… 2.1 s" line on stderr while a server is slow to list its tools. mcp() reports
 * no per-page progress, so elapsed time is what there is to show. On a terminal the line is
 * redrawn in place; into a pipe or a log it is one line per second, so a CI log stays short.
 */
import { escapeControls } from './terminal.js';

const TTY_REDRAW_MS = 100;
const PIPE_LINE_MS = 1_000;
// Fast servers answer within this; showing a line for them would only be noise.
const QUIET_MS = 300;

export function startProgress(stream: NodeJS.WriteStream, label: string): () => void {
  const started = performance.now();
  // The label names the source; its own controls (the redraw) are the only ones written raw.
  const shown = escapeControls(label);
  const tty = stream.isTTY === true;
  let drawn = false;
  const timer = setInterval(
    () => {
      const elapsed = performance.now() - started;
      if (elapsed < QUIET_MS) return;
      const text = `${shown}… ${(elapsed / 1000).toFixed(1)} s`;
      stream.write(tty ? `\r${text}\x1b[K` : `${text}\n`);
      drawn = true;
    },
    tty ? TTY_REDRAW_MS : PIPE_LINE_MS,
  );
  return () => {
    clearInterval(timer);
    if (drawn && tty) stream.write('\r\x1b[K');
    drawn = false;
  };
}
