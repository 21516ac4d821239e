/**
 * Sorts what a wire request can reject with, by where the failure came from, because the
 * kinds call for different things:
 *
 *   server      a JSON-RPC error response from the server, whatever its code: the server
 *               spoke, so the connection is fine
 *   timeout     this client's own request timer (or a handshake step past its bound)
 *   protocol    a result that is not valid MCP (a zod error), or an answer that is not a
 *               JSON-RPC response at all (MalformedAnswer): the server is wrong, not gone
 *   hook        the host's own http.headers hook failed: nothing was sent
 *   rejected    this one request failed (an HTTP status such as 401, 429 or 5xx, a network
 *               error on one POST): the session may well be alive, so only the call fails.
 *               Authorization failures land here too: a 401/403 naming its challenge
 *               (challenge.ts), the http.authProvider failing or the SDK's OAuth flow giving
 *               up (oauth.ts); none of them is evidence that the session is gone
 *   lost        evidence that the session is gone: the transport closed, or the server
 *               answered 404/400 for a session it no longer knows
 *
 * Only `lost` drops the session so that the next call reconnects. Messages go through
 * describeCause, which cuts server text to a bounded length.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeCause } from '../errors.js';
import { HeaderHookError } from './http-fetch.js';
import { HandshakeTimeout, MalformedAnswer, ServerErrorResponse, UnsupportedProtocolError } from './wire-client.js';

export type WireFailure =
  | { readonly kind: 'timeout'; readonly message: string }
  | { readonly kind: 'server'; readonly message: string; readonly code: number }
  | { readonly kind: 'protocol'; readonly message: string }
  | { readonly kind: 'hook'; readonly message: string }
  | { readonly kind: 'rejected'; readonly message: string }
  | { readonly kind: 'lost'; readonly message: string };

/** `stateless`: the 2026-07-28 HTTP wire, where a 400 or 404 is one refused request, not a lost session. */
export function classifyWireError(error: unknown, stateless = false): WireFailure {
  const message = describeCause(error);
  if (error instanceof ServerErrorResponse) return { kind: 'server', message, code: error.code };
  // An McpError that did not arrive as a response was made by the SDK itself: its timer,
  // or its reaction to the transport closing.
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', message };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'lost', message };
    return { kind: 'server', message, code: error.code };
  }
  if (error instanceof HandshakeTimeout) return { kind: 'timeout', message };
  if (isZodError(error)) return { kind: 'protocol', message: 'the server sent a result that is not valid MCP' };
  if (error instanceof UnsupportedProtocolError || error instanceof MalformedAnswer) return { kind: 'protocol', message };
  if (error instanceof HeaderHookError) return { kind: 'hook', message };
  if (error instanceof StreamableHTTPError) {
    // Servers answer a session they no longer know with 404 (the spec) or 400 (the SDK's own
    // "Server not initialized" / "No valid session ID"): either way, start a new session.
    return (error.code === 404 || error.code === 400) && !stateless ? { kind: 'lost', message } : { kind: 'rejected', message };
  }
  // The SDK's answer to a request made after its transport went away.
  if (error instanceof Error && error.message === 'Not connected') return { kind: 'lost', message };
  return { kind: 'rejected', message };
}

/** Whether the connection that produced this failure should be dropped and reopened. */
export function isConnectionLost(failure: WireFailure): boolean {
  return failure.kind === 'lost';
}

/** zod v3 names its errors ZodError, zod v4 (which the SDK parses with) $ZodError. */
function isZodError(error: unknown): boolean {
  return error instanceof Error && (error.name.endsWith('ZodError') || Array.isArray((error as { issues?: unknown }).issues));
}
