/**
 * Which revision a connection speaks, decided as the revision's backward-compatibility rules
 * say. '2025-11-25' runs the initialize handshake exactly as before. '2026-07-28' and 'auto'
 * send `server/discover` first: a discover result offering 2026-07-28, or a modern error
 * (-32020/-32021/-32022), identifies a modern server; a -32022 offering 2026-07-28 is retried
 * once. Under 'auto' anything else a legacy server might say falls back to `initialize`:
 *  - any other JSON-RPC error, or an answer that is no discover result;
 *  - over HTTP, a 400, 404 or 405 without a JSON-RPC error (modern/link.ts hands a JSON-RPC
 *    error body on as the answer); silence over HTTP is an outage, never a legacy signal;
 *  - on stdio and in process, silence for the probe's bound (half of connectMs; without it the
 *    SDK's 60 s request timeout), and a server that exits on the probe (the session then starts it again for `initialize`).
 * What a connection found is the hint for the source's next one, so 'auto' probes once per
 * source; a server that then refuses `initialize` for 2026-07-28 is probed again.
 * A refusal names what was tried and what the server offered.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeCause } from '../../errors.js';
import { ServerErrorResponse, UnsupportedProtocolError, type WireClient } from '../wire-client.js';
import { classifyWireError } from '../wire-errors.js';
import { DiscoverResultSchema, type DiscoverResult } from './answers.js';
import type { ModernLink } from './link.js';
import { LEGACY, MODERN, MODERN_ERRORS, UNSUPPORTED_VERSION, listVersions, offeredVersions, type Era, type ProtocolOption } from './revision.js';

export type EraOutcome = { readonly era: 'legacy' } | { readonly era: 'modern'; readonly listChanged: boolean };


/** The probe; the SDK's 2025 request types do not know the method. */
const DISCOVER = { method: 'server/discover', params: {} } as unknown as ClientRequest;

/**
 * Connect again, in `era`: the server closed the connection on the probe (start it again for
 * `initialize`), or refused the `initialize` an earlier connection's finding led to.
 */
export class EraRetry extends Error {
  override readonly name = 'EraRetry';
  constructor(
    readonly era: Era,
    message: string,
  ) {
    super(message);
  }
}

export interface EraOptions {
  readonly protocol: ProtocolOption;
  /** What an earlier connection of the same source found, so `auto` probes once per source. */
  readonly hint: Era | undefined;
  readonly http: boolean;
  readonly timeoutMs: number | undefined;
}

export async function openEra(client: WireClient, transport: Transport, link: ModernLink | undefined, options: EraOptions): Promise<EraOutcome> {
  await client.connect(transport);
  link?.observe(transport);
  try {
    if (link !== undefined && !(options.protocol === 'auto' && options.hint === 'legacy')) {
      link.on = true;
      const found = await discover(client, options);
      if (found !== undefined) return found;
      link.on = false;
    }
    await legacyHandshake(client, transport, options);
    return { era: 'legacy' };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** The modern outcome, or undefined for "fall back to initialize". */
async function discover(client: WireClient, options: EraOptions): Promise<EraOutcome | undefined> {
  const { protocol, http, timeoutMs } = options;
  const auto = protocol === 'auto';
  // A silent stdio server is a legacy one, but one still starting looks the same: the probe
  // waits the standard bound, or half of connectMs, so that initialize has the other half.
  const timeout = http || !auto || timeoutMs === undefined ? timeoutMs : timeoutMs / 2;
  const settle = (offered: readonly string[] | undefined): undefined => {
    if (auto && offered?.includes(LEGACY) === true) return undefined;
    throw new UnsupportedProtocolError(
      `the server does not speak ${auto ? `${MODERN} or ${LEGACY}` : MODERN}: it offered ${listVersions(offered)}`,
    );
  };
  for (let attempt = 0; ; attempt += 1) {
    let found: DiscoverResult;
    try {
      found = await client.call(DISCOVER, DiscoverResultSchema, timeout === undefined ? {} : { timeout });
    } catch (error) {
      if (error instanceof ServerErrorResponse && error.code === UNSUPPORTED_VERSION) {
        const offered = offeredVersions(error.data);
        if (attempt === 0 && offered?.includes(MODERN) === true) continue;
        return settle(offered);
      }
      // A modern server refusing the request itself: falling back would only hide why.
      if (error instanceof ServerErrorResponse && MODERN_ERRORS.has(error.code)) throw error;
      if (legacySignal(error, http)) {
        if (auto) return undefined;
        throw new UnsupportedProtocolError(
          `the server did not answer server/discover as a ${MODERN} server (${describeCause(error)}); if it speaks ${LEGACY} only, set protocol to 'auto' or '${LEGACY}'`,
        );
      }
      if (auto && !http && classifyWireError(error).kind === 'lost') throw new EraRetry('legacy', 'the server closed the connection on server/discover');
      throw error;
    }
    // Outside the try: a result offering neither revision is a refusal, not a legacy signal.
    if (found.supportedVersions.includes(MODERN)) return { era: 'modern', listChanged: found.capabilities.tools?.listChanged === true };
    return settle(found.supportedVersions.slice(0, 32));
  }
}

/** What a legacy server may answer a request before initialize (the kinds of wire-errors.ts). */
function legacySignal(error: unknown, http: boolean): boolean {
  const { kind } = classifyWireError(error, true);
  if (http) return kind === 'server' || kind === 'protocol' || (error instanceof StreamableHTTPError && (error.code === 400 || error.code === 404 || error.code === 405));
  return kind === 'server' || kind === 'protocol' || kind === 'timeout';
}

/** initialize, and a refusal by a modern-only server worded as what it is. */
async function legacyHandshake(client: WireClient, transport: Transport, options: EraOptions): Promise<void> {
  try {
    await client.handshake(transport, options.timeoutMs);
  } catch (error) {
    // A -32022 as a JSON-RPC error (stdio, in process, HTTP through the link), or over the
    // 2025 HTTP wire, the JSON body the SDK quotes in its HTTP error.
    let refusal: { code?: unknown; data?: unknown } | undefined = error instanceof ServerErrorResponse ? error : undefined;
    if (error instanceof StreamableHTTPError && error.code === 400) {
      try {
        refusal = (JSON.parse(error.message.slice(error.message.indexOf('{'))) as { error?: typeof refusal }).error;
      } catch {
        // Not JSON: no refusal to word.
      }
    }
    if (refusal?.code !== UNSUPPORTED_VERSION) throw error;
    const offered = offeredVersions(refusal.data) ?? [];
    // What an earlier connection found no longer holds: probe again.
    if (options.protocol === 'auto' && options.hint === 'legacy' && offered.includes(MODERN)) throw new EraRetry('modern', 'the server no longer speaks 2025-11-25');
    const hint = options.protocol === 'auto' ? '' : `; set protocol to 'auto' or '${MODERN}' to speak the revisions it offers`;
    throw new UnsupportedProtocolError(`the server refused initialize (protocol ${LEGACY}): it offered ${listVersions(offered)}${hint}`);
  }
}
