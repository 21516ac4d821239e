/**
 * Opening a session within `timeouts.connectMs`. On expiry the half-open connection is torn
 * down (client, transport, and a stdio child with its process group) before the typed
 * refusal is raised, so a caller that sees `connect.timeout` sees nothing left running. The
 * wait for that release is itself bounded: a server whose own connect() never returns holds
 * nothing this library could release.
 */
import { settledWithin } from '../async.js';
import { ConfigError } from '../errors.js';
import { McpSession, type SessionOpening } from './session.js';

/** How long releasing a half-open connection may take (a stdio group end is at most ~4 s). */
export const RELEASE_WAIT_MS = 6_000;

export async function connectSession(opening: SessionOpening, signal: AbortSignal): Promise<McpSession> {
  const { config, sourceId } = opening;
  const connectMs = config.timeouts?.connectMs;
  if (connectMs === undefined) return McpSession.open(opening, signal);

  const local = new AbortController();
  const forward = () => local.abort();
  signal.addEventListener('abort', forward, { once: true });
  const opened = McpSession.open(opening, local.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), connectMs);
  });
  try {
    const winner = await Promise.race([opened, expired]);
    if (winner !== 'expired') return winner;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', forward);
  }
  local.abort();
  // If the handshake finished in the same instant, the abort came too late to release it.
  void opened.then((session) => session.shutdown(), () => undefined);
  await settledWithin(opened, RELEASE_WAIT_MS);
  throw new ConfigError(
    'connect.timeout',
    `${sourceId}: the MCP handshake did not finish within timeouts.connectMs = ${connectMs} ms; the connection was released`,
  );
}
