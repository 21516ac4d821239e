/**
 * Sorts what a wire request can reject with, because the kinds call for different things:
 *
 *   timeout     the SDK's request timer (McpError -32001): the connection is fine
 *   server      a JSON-RPC error from the server (McpError with its code): fine too
 *   protocol    a result that is not valid MCP (a zod error): the server is wrong, not gone
 *   rejected    the request failed but the session may live: another HTTP status (401,
 *               403, 429, 5xx…), or the host's own header hook threw
 *   lost        the connection is gone: closed transport (McpError -32000), a network
 *               failure, or HTTP 404/400 for a session the server no longer knows
 *
 * Only `lost` drops the session so that the next call reconnects.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeCause } from '../errors.js';
import { HeaderHookError } from './http-fetch.js';
import { UnsupportedProtocolError } from './wire-client.js';

export type WireFailure =
  | { readonly kind: 'timeout'; readonly message: string }
  | { readonly kind: 'server'; readonly message: string; readonly code: number }
  | { readonly kind: 'protocol'; readonly message: string }
  | { readonly kind: 'rejected'; readonly message: string }
  | { readonly kind: 'lost'; readonly message: string };

export function classifyWireError(error: unknown): WireFailure {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', message: error.message };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'lost', message: error.message };
    return { kind: 'server', message: error.message, code: error.code };
  }
  if (isZodError(error)) return { kind: 'protocol', message: 'the server sent a result that is not valid MCP' };
  if (error instanceof UnsupportedProtocolError) return { kind: 'protocol', message: error.message };
  if (error instanceof HeaderHookError) return { kind: 'rejected', message: error.message };
  if (error instanceof StreamableHTTPError) {
    const status = typeof error.code === 'number' ? error.code : -1;
    // Servers answer a session they no longer know with 404 (the spec) or 400 (the SDK's own
    // "Server not initialized" / "No valid session ID"): either way, start a new session.
    return status === 404 || status === 400 ? { kind: 'lost', message: error.message } : { kind: 'rejected', message: error.message };
  }
  return { kind: 'lost', message: describeCause(error) };
}

/** Whether the connection that produced this failure should be dropped and reopened. */
export function isConnectionLost(failure: WireFailure): boolean {
  return failure.kind === 'lost';
}

/** zod v3 names its errors ZodError, zod v4 (which the SDK parses with) $ZodError. */
function isZodError(error: unknown): boolean {
  return error instanceof Error && (error.name.endsWith('ZodError') || Array.isArray((error as { issues?: unknown }).issues));
}
