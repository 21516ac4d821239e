/**
 * The per-result cap (issue 23 item 4): a result larger than `maxResultBytes` as JSON becomes
 * an error result the model reads, so no single call can make a turn boundary too large for
 * a journal to keep (every store takes any batch, but a 500 MB result would still be written,
 * fsync'd and read back on every resume). The default, 16 MiB, is above the 10 MB an MCP
 * message may be, so imported tools meet it only through a bug; a native tool that returns a
 * file's contents meets it. Counting stops at the cap, so a huge result costs the cap, not
 * its size.
 */
import { ConfigError } from '../errors.js';
import { jsonByteLength } from '../schema/byte-size.js';
import type { ToolResult } from '../tools/types.js';

/** The default `maxResultBytes` of `dispatchTool` (and so of every call the engine runs). */
export const MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** JSON writes at most 6 bytes per UTF-16 unit (`\u001f`): a string this short cannot be over the cap. */
const MAX_BYTES_PER_UNIT = 6;

/** `maxResultBytes` as given, checked; the default when absent. */
export function resultCapOf(maxResultBytes: number | undefined): number {
  if (maxResultBytes === undefined) return MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(maxResultBytes) || maxResultBytes <= 0) {
    throw new ConfigError('config.invalid_value', `dispatchTool: maxResultBytes must be a positive integer (bytes), not ${String(maxResultBytes)}`);
  }
  return maxResultBytes;
}

/** The result, or an error result in its place when its output is over `cap` bytes of JSON. */
export function capResult(result: ToolResult, cap: number): ToolResult {
  const { output } = result;
  if (typeof output === 'string' ? output.length * MAX_BYTES_PER_UNIT + 2 <= cap : typeof output !== 'object' || output === null) return result;
  if (countedBytes(output, cap) <= cap) return result;
  return {
    callId: result.callId,
    toolName: result.toolName,
    isError: true,
    output: `the result of ${result.toolName} is over ${cap} bytes as JSON (maxResultBytes), so it was not kept; ask for less of it`,
    reason: 'invalid_output',
  };
}

/**
 * The output's JSON size, up to a little past `cap`; 0 when reading it throws (a getter, a
 * proxy): what cannot be read is refused by the stages after this one, with their own reason.
 */
function countedBytes(output: unknown, cap: number): number {
  try {
    return jsonByteLength(output, cap);
  } catch {
    return 0;
  }
}
