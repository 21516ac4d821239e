/**
 * Opening a session within `timeouts.connectMs`. On expiry the half-open connection is torn
 * down (client, transport, and a stdio child with its process group) before the typed
 * refusal is raised, so a caller that sees `connect.timeout` sees nothing left running. The
 * wait for that release is itself bounded: a server whose own connect() never returns holds
 * nothing this library could release.
 */
import { settledWithin } from '../async.js';
import { ConfigError } from '../errors.js';
import type { McpConfig } from './config-types.js';
import { McpSession, type SessionEvents } from './session.js';
import type { Redactor } from '../secrets/redactor.js';
import type { McpPlatform } from './transports.js';
import type { Era } from './modern/revision.js';

/** How long releasing a half-open connection may take (a stdio group end is at most ~4 s). */
export const RELEASE_WAIT_MS = 6_000;

export async function connectSession(
  config: McpConfig,
  platform: McpPlatform,
  sourceId: string,
  events: SessionEvents,
  signal: AbortSignal,
  redactor: Redactor,
  hint?: Era,
): Promise<McpSession> {
  const connectMs = config.timeouts?.connectMs;
  if (connectMs === undefined) return McpSession.open(config, platform, sourceId, events, signal, redactor, hint);

  const local = new AbortController();
  const forward = () => local.abort();
  signal.addEventListener('abort', forward, { once: true });
  const opening = McpSession.open(config, platform, sourceId, events, local.signal, redactor, hint);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), connectMs);
  });
  try {
    const winner = await Promise.race([opening, expired]);
    if (winner !== 'expired') return winner;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', forward);
  }
  local.abort();
  // If the handshake finished in the same instant, the abort came too late to release it.
  void opening.then((session) => session.shutdown(), () => undefined);
  await settledWithin(opening, RELEASE_WAIT_MS);
  throw new ConfigError(
    'connect.timeout',
    `${sourceId}: the MCP handshake did not finish within timeouts.connectMs = ${connectMs} ms; the connection was released`,
  );
}
