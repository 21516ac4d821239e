/**
 * One `tools/call` on a live session, and everything that can come back turned into a value
 * the model can read: the mapped result, or a tool error with its reason. Nothing here
 * throws: a server's failure is the tool's result, never an exception past policy.
 */
import { toolError } from '../tools/tool-error.js';
import type { ToolContext } from '../tools/types.js';
import { mapCallResult } from './results.js';
import type { McpSession } from './session.js';
import { classifyWireError, isConnectionLost } from './wire-errors.js';

/** What a ToolDef knows about the wire tool behind it. */
export interface CallTarget {
  /** The server's (original, unprefixed) name. */
  readonly name: string;
  readonly hasOutputSchema: boolean;
}

export async function callOnSession(
  session: McpSession,
  sourceId: string,
  target: CallTarget,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<unknown> {
  try {
    return mapCallResult(await session.callTool(target.name, args, ctx.signal, ctx.idempotencyKey), target.hasOutputSchema);
  } catch (error) {
    // The host gave up on the call; the connection itself is fine.
    if (ctx.signal.aborted) return cancelled(target.name, ctx.signal);
    const failure = classifyWireError(error);
    if (isConnectionLost(failure)) session.markLost();
    switch (failure.kind) {
      case 'timeout':
        return toolError('timeout', `${target.name} timed out: ${failure.message}`);
      case 'server':
        return toolError('server_error', `${target.name} failed with JSON-RPC error ${failure.code}: ${failure.message}`);
      case 'protocol':
        return toolError('server_error', `${target.name}: ${failure.message}`);
      case 'hook':
        return toolError('unavailable', `${sourceId}: ${failure.message}`);
      case 'rejected':
        return toolError('unavailable', `${sourceId}: the request failed: ${failure.message}`);
      case 'lost':
        return toolError('unavailable', `${sourceId} is unavailable: ${session.explain(error)}`);
    }
  }
}

/** The result of a call its caller cancelled: a deadline is a timeout, anything else is not. */
export function cancelled(name: string, signal: AbortSignal): unknown {
  const timedOut = signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
  return timedOut
    ? toolError('timeout', `${name} was cancelled: its deadline passed`)
    : toolError('unavailable', `${name} was cancelled before it finished`);
}
