/**
 * Opens the wire for a config. Runtime-neutral transports live here; stdio is a platform
 * capability handed in by the Node entry, so this module never reaches for child processes.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { raceSignal } from '../async.js';
import { ConfigError } from '../errors.js';
import type { HttpOptions, McpConfig, StdioMcpConfig } from './config-types.js';
import { createHeaderFetch } from './http-fetch.js';
import type { ModernLink } from './modern/link.js';
import { AuthorizingTransport, ResendWatch, guardProvider } from './oauth.js';
import type { Redactor } from '../secrets/redactor.js';

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

/** Where a `createMcpHandler` handler served in process is reached: nothing leaves the process. */
const IN_PROCESS_URL = 'http://inprocess.invalid/mcp';

/** `link`: the 2026-07-28 wire's additions, absent when the source speaks 2025-11-25 only. */
export async function openTransport(
  config: McpConfig,
  platform: McpPlatform,
  signal: AbortSignal,
  redactor: Redactor,
  link?: ModernLink,
): Promise<OpenedTransport> {
  switch (config.transport) {
    case 'stdio': {
      if (platform.stdio === undefined) throw stdioUnavailable();
      const transport = platform.stdio(config);
      return { transport, shutdown: () => transport.close() };
    }
    case 'streamable-http':
      return openHttp(new URL(String(config.url)), config.http, redactor, link);
    case 'inprocess': {
      const { server } = config;
      if (!('connect' in server)) {
        const fetch = (input: string | URL, init?: RequestInit) => server.fetch(new Request(input, init));
        return openHttp(new URL(IN_PROCESS_URL), { fetch }, redactor, link);
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      // The host's server may never finish connecting; close() must not wait on it for ever.
      const connecting = Promise.resolve(server.connect(serverSide));
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

function openHttp(url: URL, http: HttpOptions | undefined, redactor: Redactor, link: ModernLink | undefined): OpenedTransport {
  let overflow: ((error: Error) => void) | undefined;
  const authProvider = http?.authProvider;
  const guard = authProvider === undefined ? undefined : guardProvider(authProvider, redactor, link !== undefined);
  // Consulted only with a provider (authorizes), for the flow's own resends.
  const watch = new ResendWatch();
  const endpoint = { url, authorizes: guard !== undefined, onStepUp: (challenged: string | undefined) => guard?.stepUp(challenged), onUnauthorized: watch.onUnauthorized };
  const fetch = createHeaderFetch(http?.headers, http?.fetch, (error) => overflow?.(error), redactor, endpoint);
  const options = { fetch: link === undefined ? fetch : link.fetch(fetch, url) };
  const transport = guard === undefined ? new StreamableHTTPClientTransport(url, options) : new AuthorizingTransport(url, options, guard, watch);
  return { transport, shutdown: () => endHttpSession(transport), onOverflow: (handler) => (overflow = handler) };
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
