/**
 * The caller's signal as dispatchTool hands it to a call, apart from call.ts: dispatching a
 * native tool (all an engine-only process does) then loads none of the MCP client, the SDK
 * or zod (issue 25: an engine-only import at a fraction of the whole entry's).
 */
import type { ToolContext } from '../tools/types.js';

/**
 * Where a context made by dispatchTool keeps the signal its caller gave (undefined: none), so
 * this path can tell "no signal" without reading `ctx.signal`, which would make one (see
 * CallContext in bus/dispatch.ts). A registered symbol: one copy of this package reads what
 * another wrote. Any other context is read through `ctx.signal`.
 */
export const CALLER_SIGNAL: unique symbol = Symbol.for('rulvar.callerSignal');

/** The caller's signal, or undefined when the call cannot be aborted. */
export function callerSignal(ctx: ToolContext): AbortSignal | undefined {
  return CALLER_SIGNAL in ctx ? (ctx as { readonly [CALLER_SIGNAL]?: AbortSignal })[CALLER_SIGNAL] : ctx.signal;
}
