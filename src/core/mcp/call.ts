/**
 * One `tools/call` on a live session, and everything that can come back turned into a value
 * the model can read: the mapped result, or a tool error with its reason. Nothing here
 * throws: a server's failure is the tool's result, never an exception past policy.
 */
import { toolError } from '../tools/tool-error.js';
import { callerSignal } from './caller-signal.js';
import type { ToolContext } from '../tools/types.js';
import type { LenientCallToolResult } from './call-result-schema.js';
import { mapCallResult } from './results.js';
import type { CallProgress } from './progress-watch.js';
import type { McpSession } from './session.js';
import { classifyWireError, isConnectionLost } from './wire-errors.js';

export { CALLER_SIGNAL, callerSignal } from './caller-signal.js';

/** What a ToolDef knows about the wire tool behind it. */
export interface CallTarget {
  /** The server's (original, unprefixed) name. */
  readonly name: string;
  readonly hasOutputSchema: boolean;
}

/**
 * `spentMs`: what of the call's bounds went on a reconnect (source.ts). `report`: where the
 * server's progress goes (ctx.progress, scrubbed by the source).
 */
export function callOnSession(
  session: McpSession,
  sourceId: string,
  target: CallTarget,
  args: Record<string, unknown>,
  ctx: ToolContext,
  spentMs?: number,
  report?: CallProgress['onProgress'],
): Promise<unknown> {
  const signal = callerSignal(ctx);
  // Not an async function: this runs on every call, and its frame would be kept per call.
  const fail = (error: unknown) => failed(session, sourceId, target, signal, error);
  let pending: Promise<LenientCallToolResult>;
  try {
    pending = session.callTool(target.name, args, signal, ctx.idempotencyKey, spentMs, report);
  } catch (error) {
    return Promise.resolve(fail(error));
  }
  return pending.then((result) => {
    try {
      return mapCallResult(result, target.hasOutputSchema);
    } catch (error) {
      // An in-process server's value can throw when read (a getter, a proxy): still a result.
      return fail(error);
    }
  }, fail);
}

function failed(session: McpSession, sourceId: string, target: CallTarget, signal: AbortSignal | undefined, error: unknown): unknown {
  // The host gave up on the call; the connection itself is fine.
  if (signal?.aborted === true) return cancelled(target.name, signal);
  const failure = classifyWireError(error, session.stateless);
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

/** The result of a call its caller cancelled: a deadline is a timeout, anything else is not. */
export function cancelled(name: string, signal: AbortSignal): unknown {
  const timedOut = signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
  return timedOut
    ? toolError('timeout', `${name} was cancelled: its deadline passed`)
    : toolError('unavailable', `${name} was cancelled before it finished`);
}
