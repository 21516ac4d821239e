/**
 * A scripted answer as the deltas a streaming provider would send (model/response-deltas.ts):
 * text and tool-call inputs in pieces of `chunkChars` characters.
 */
import { responseDeltas } from '../core/model/response-deltas.js';
import type { ModelDelta, ModelResponse } from '../core/model/types.js';

/** How `scripted(script, { stream })` cuts each answer into deltas. */
export interface StreamOptions {
  /** Characters per text or input delta. Default 4. */
  chunkChars?: number;
  /** Milliseconds before each delta, as a slow model would take. Default 0. */
  delayMs?: number;
}

export function deltasOf(response: ModelResponse, options: StreamOptions): Iterable<ModelDelta> {
  const size = options.chunkChars ?? 4;
  if (!Number.isSafeInteger(size) || size < 1) throw new TypeError(`scripted() stream.chunkChars must be a positive integer, got ${String(size)}`);
  return responseDeltas(response, size);
}
