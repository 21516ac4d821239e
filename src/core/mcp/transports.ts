/**
 * Opens the wire for a config. Runtime-neutral transports live here; stdio is a platform
 * capability handed in by the Node entry, so this module never reaches for child processes.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { raceSignal } from '../async.js';
import { ConfigError } from '../errors.js';
import type { McpConfig, StdioMcpConfig } from './config-types.js';
import { createHeaderFetch } from './http-fetch.js';
import { AuthorizingTransport, ResendWatch, guardProvider } from './oauth.js';
import type { Redactor } from './redact.js';

/** What a runtime entry can add: the Node entry supplies stdio. */
export interface McpPlatform {
  readonly stdio?: (config: StdioMcpConfig) => Transport;
}

export interface OpenedTransport {
  readonly transport: Transport;
  /** Ends the session politely where the protocol has a way to, then closes the wire. */
  shutdown(): Promise<void>;
  /** HTTP only: hears when a response was cut at the message size cap. */
  onOverflow?(handler: (error: Error) => void): void;
}

/** How long a polite session end (HTTP DELETE) may take before the wire is just closed. */
const SESSION_END_MS = 2_000;

export async function openTransport(
  config: McpConfig,
  platform: McpPlatform,
  signal: AbortSignal,
  redactor: Redactor,
): Promise<OpenedTransport> {
  switch (config.transport) {
    case 'stdio': {
      if (platform.stdio === undefined) throw stdioUnavailable();
      const transport = platform.stdio(config);
      return { transport, shutdown: () => transport.close() };
    }
    case 'streamable-http': {
      let overflow: ((error: Error) => void) | undefined;
      const url = new URL(String(config.url));
      const authProvider = config.http?.authProvider;
      const guard = authProvider === undefined ? undefined : guardProvider(authProvider, redactor);
      // Consulted only with a provider (authorizes), for the flow's own resends.
      const watch = new ResendWatch();
      const endpoint = { url, authorizes: guard !== undefined, onStepUp: () => guard?.stepUp(), onUnauthorized: watch.onUnauthorized };
      const options = { fetch: createHeaderFetch(config.http?.headers, config.http?.fetch, (error) => overflow?.(error), redactor, endpoint) };
      const transport = guard === undefined ? new StreamableHTTPClientTransport(url, options) : new AuthorizingTransport(url, options, guard, watch);
      return { transport, shutdown: () => endHttpSession(transport), onOverflow: (handler) => (overflow = handler) };
    }
    case 'inprocess': {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      // The host's server may never finish connecting; close() must not wait on it for ever.
      const connecting = Promise.resolve(config.server.connect(serverSide));
      try {
        await raceSignal(connecting, signal, () => new Error('the source was closed while the server was connecting'));
      } catch (error) {
        void connecting.then(() => clientSide.close(), () => undefined);
        throw error;
      }
      // Closing one side of the linked pair closes the other, which frees the server
      // instance to be connected again by a later session.
      return { transport: clientSide, shutdown: () => clientSide.close() };
    }
  }
}

/** Checked at construction too, so the edge entry refuses stdio before anything runs. */
export function assertTransportAvailable(config: McpConfig, platform: McpPlatform): void {
  if (config.transport === 'stdio' && platform.stdio === undefined) throw stdioUnavailable();
}

function stdioUnavailable(): ConfigError {
  return new ConfigError(
    'config.transport_unavailable',
    "mcp(): transport 'stdio' needs child processes, which this runtime does not have; " +
      "import mcp from '@rulvar/core/node' (or run under Node) to use stdio servers",
  );
}

async function endHttpSession(transport: StreamableHTTPClientTransport): Promise<void> {
  if (transport.sessionId !== undefined) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SESSION_END_MS);
    });
    // A server that is already gone cannot acknowledge the DELETE; closing still proceeds.
    await Promise.race([transport.terminateSession().catch(() => undefined), deadline]);
    clearTimeout(timer);
  }
  await transport.close();
}
