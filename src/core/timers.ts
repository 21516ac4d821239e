/**
 * Whether a timer keeps the process alive. Node's timers do until they are unref'd; the Web's
 * are plain numbers and keep nothing alive. The library's own timers (lease renewals,
 * deadlines, a worker's sweeps, a model call between attempts) must never be what keeps a
 * host's process running, so they go through here, whatever the runtime hands back.
 */
type NodeTimer = { ref?: () => void; unref?: () => void } | null | undefined;

/** The timer, made not to keep a Node process alive (a Web timer never did). */
export function unrefTimer<T>(timer: T): T {
  refTimer(timer, false);
  return timer;
}

/** Makes a Node timer keep its process alive (`keep`) or not; any other timer is left as it is. */
export function refTimer(timer: unknown, keep: boolean): void {
  const node = timer as NodeTimer;
  if (keep) node?.ref?.();
  else node?.unref?.();
}
