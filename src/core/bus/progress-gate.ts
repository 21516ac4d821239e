/**
 * Between a running tool's progress reports and the host: each report is checked
 * (tools/progress.ts), and what passes is coalesced to at most one delivery per
 * PROGRESS_INTERVAL_MS per call. The first report is delivered at once; the ones inside the
 * interval after it replace each other, and the last of them is delivered when the interval
 * ends, or when the call settles, whichever is first. After the call settles nothing more is
 * delivered. So a server sending 100,000 notifications costs the host one event per interval
 * (plus one at the end), however fast it sends them.
 */
import { acceptProgress, type ReportProgress, type ToolProgress } from '../tools/progress.js';

/** At most one progress delivery per call in this many milliseconds (docs/bounds.md). */
export const PROGRESS_INTERVAL_MS = 100;

export class ProgressGate {
  /** The last progress value accepted, delivered or not: a report must go past it. */
  private last: number | undefined;
  private sentAt = Number.NEGATIVE_INFINITY;
  private held: ToolProgress | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly deliver: (progress: ToolProgress) => void) {}

  /** What the tool is handed as `ToolContext.progress`. */
  readonly report: ReportProgress = (progress, total, message) => {
    if (this.closed) return;
    const accepted = acceptProgress(progress, total, message, this.last);
    if (accepted === undefined) return;
    this.last = accepted.progress;
    const waited = Date.now() - this.sentAt;
    if (this.timer === undefined && waited >= PROGRESS_INTERVAL_MS) {
      this.send(accepted);
      return;
    }
    this.held = accepted;
    this.timer ??= setTimeout(this.flush, Math.max(0, PROGRESS_INTERVAL_MS - waited));
  };

  /** The call settled: what is held is delivered now, and nothing after it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.flush();
  }

  private readonly flush = (): void => {
    this.timer = undefined;
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) this.send(held);
  };

  private send(progress: ToolProgress): void {
    this.sentAt = Date.now();
    try {
      this.deliver(progress);
    } catch {
      // The host's listener failing is the host's; the tool carries on.
    }
  }
}
