/**
 * tools/list and tools/call on the 2026-07-28 wire. Both retry once when the server answers
 * -32022 offering 2026-07-28 (the revision's "retry with a supported version"; this client
 * has no other modern version to offer). A call result is read by its `resultType`:
 * "complete" (or absent) is the result; "input_required" is never one. The server then asks
 * for input through `inputRequests` (a server may only ask what the client declared, and this
 * client declared nothing) and/or hands back `requestState`; the call is sent again, at most
 * MAX_INPUT_ROUNDS times in all and within the one `callMs`, with `requestState` echoed
 * byte for byte, an elicitation answered "cancel" (there is no person to ask) and a roots
 * request answered with no roots. Anything else it asks for (sampling, say) ends the call as
 * a server error naming what was asked.
 */
import { isRecord } from '../../records.js';
import { LenientCallToolResultSchema, type LenientCallToolResult } from '../call-result-schema.js';
import type { CallProgress } from '../progress-watch.js';
import { MalformedAnswer, ServerErrorResponse, type WireClient } from '../wire-client.js';
import { ModernListSchema, knownResultType } from './answers.js';
import { MODERN, UNSUPPORTED_VERSION, offeredVersions } from './revision.js';

export const MAX_INPUT_ROUNDS = 8;
/** More input requests than this in one answer is no request a tools-only client can meet. */
const MAX_INPUT_REQUESTS = 32;

/** `send`, once more when it is refused with -32022 offering this client's version. */
async function retryingVersion<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof ServerErrorResponse) || error.code !== UNSUPPORTED_VERSION || offeredVersions(error.data)?.includes(MODERN) !== true) throw error;
    return send();
  }
}

export function listPage(client: WireClient, cursor: string | undefined, timeout: number | undefined) {
  const params = cursor === undefined ? {} : { cursor };
  return retryingVersion(() => client.call({ method: 'tools/list', params }, ModernListSchema, timeout === undefined ? {} : { timeout }));
}

export async function callTool(
  client: WireClient,
  params: { readonly name: string; readonly arguments: Record<string, unknown> },
  timeout: number | undefined,
  signal: AbortSignal | undefined,
  progress?: CallProgress,
): Promise<LenientCallToolResult> {
  const deadline = timeout === undefined ? undefined : Date.now() + timeout;
  let input: Record<string, unknown> = {};
  for (let round = 1; ; round += 1) {
    const left = deadline === undefined ? undefined : { timeout: Math.max(1, deadline - Date.now()) };
    const request = { method: 'tools/call' as const, params: { ...params, ...input } };
    // Each round is a request of its own, with its own token and a whole idle window.
    const watched = progress === undefined || round === 1 ? progress : { ...progress, spentMs: 0 };
    const result = await retryingVersion(() => client.call(request, LenientCallToolResultSchema, left, signal, watched));
    if (!knownResultType(result)) throw new MalformedAnswer(`the server answered with a result of unknown resultType ${JSON.stringify(String(result['resultType']).slice(0, 40))}`);
    if (result['resultType'] !== 'input_required') return result;
    if (round >= MAX_INPUT_ROUNDS) throw new MalformedAnswer(`the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    input = answer(result);
  }
}

/** What the retry carries: the answers to the server's input requests, and its state as it came. */
function answer(result: Record<string, unknown>): Record<string, unknown> {
  const { inputRequests: requests, requestState: state } = result;
  if (state !== undefined && typeof state !== 'string') throw new MalformedAnswer('the server answered with a requestState that is not a string');
  if (requests === undefined && state === undefined) throw new MalformedAnswer('the server asked for input without inputRequests or requestState');
  const retry: Record<string, unknown> = state === undefined ? {} : { requestState: state };
  if (requests === undefined) return retry;
  if (!isRecord(requests) || Object.keys(requests).length > MAX_INPUT_REQUESTS) throw new MalformedAnswer('the server asked for input with inputRequests that are not a small map');
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    const method = isRecord(request) ? request['method'] : undefined;
    if (method === 'elicitation/create') responses[key] = { action: 'cancel' };
    else if (method === 'roots/list') responses[key] = { roots: [] };
    else throw new MalformedAnswer(`the server asked for input this client does not give (${JSON.stringify(String(method).slice(0, 40))})`);
  }
  return { ...retry, inputResponses: responses };
}
