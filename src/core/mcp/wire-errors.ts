/**
 * Sorts what a wire request can reject with. The SDK reports its own timeouts and lost
 * connections as McpError codes -32001 and -32000, a server's JSON-RPC error as McpError with
 * the server's code, and transport failures (a refused socket, an HTTP 404 for a session the
 * server forgot) as plain errors. Only the first kind leaves the connection usable.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeCause } from '../errors.js';

export type WireFailure =
  | { readonly kind: 'timeout'; readonly message: string }
  | { readonly kind: 'server'; readonly message: string; readonly code: number }
  | { readonly kind: 'protocol'; readonly message: string }
  | { readonly kind: 'connection'; readonly message: string };

export function classifyWireError(error: unknown): WireFailure {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'timeout', message: error.message };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'connection', message: error.message };
    return { kind: 'server', message: error.message, code: error.code };
  }
  // A response that does not match the MCP result schema: the server speaks nonsense, but
  // the connection itself still works.
  if (error instanceof Error && error.name === 'ZodError') {
    return { kind: 'protocol', message: 'the server sent a result that is not valid MCP' };
  }
  return { kind: 'connection', message: describeCause(error) };
}

/** Whether the connection that produced this failure should be dropped and reopened. */
export function isConnectionLost(failure: WireFailure): boolean {
  return failure.kind === 'connection';
}
