/**
 * What a tool may report as progress, and what of it reaches the host. A report comes from a
 * native tool or, through `notifications/progress`, from an MCP server: either way it is
 * untrusted, so it is checked here once for both (spec/runtime.md, "Streaming, progress,
 * traces"; docs/mcp.md, "Progress").
 *
 *  - `progress` must be a finite number greater than the last one accepted for the call (the
 *    MCP rule "MUST increase"); anything else is ignored: no event, and no timer restarted.
 *  - `total` is kept when it is a finite number, else left out (the report still counts).
 *  - `message` is kept when it is a string: control characters (C0, DEL, C1) become spaces, so
 *    a terminal or a log line cannot be steered by it, and it is cut at MAX_PROGRESS_MESSAGE
 *    UTF-16 units (never inside a surrogate pair) with an ellipsis.
 */

/** One progress report, as the `tool:progress` event carries it. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** How a tool reports progress: `ToolContext.progress`. */
export type ReportProgress = (progress: number, total?: number, message?: string) => void;

/** The longest message kept, in UTF-16 units; a longer one is cut and ends with an ellipsis. */
export const MAX_PROGRESS_MESSAGE = 500;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Whether `progress` is a report to take after `last` (undefined: none taken yet). */
export function movesForward(progress: unknown, last: number | undefined): progress is number {
  return typeof progress === 'number' && Number.isFinite(progress) && (last === undefined || progress > last);
}

/** The report as the host sees it, or undefined when it is to be ignored. */
export function acceptProgress(progress: unknown, total: unknown, message: unknown, last: number | undefined): ToolProgress | undefined {
  if (!movesForward(progress, last)) return undefined;
  const kept = typeof total === 'number' && Number.isFinite(total) ? total : undefined;
  const text = typeof message === 'string' ? boundedMessage(message) : undefined;
  if (kept === undefined) return text === undefined ? { progress } : { progress, message: text };
  return text === undefined ? { progress, total: kept } : { progress, total: kept, message: text };
}

function boundedMessage(message: string): string {
  // Cut first: a message of megabytes costs no more than MAX_PROGRESS_MESSAGE to clean.
  let text = message;
  if (text.length > MAX_PROGRESS_MESSAGE) {
    let end = MAX_PROGRESS_MESSAGE - 1;
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    text = `${text.slice(0, end)}…`;
  }
  return text.replace(CONTROL, ' ');
}
