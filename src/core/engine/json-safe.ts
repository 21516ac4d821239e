/**
 * What enters history enters the journal, and what comes back from the journal is JSON. So
 * every value an agent keeps (a response, a result, an ask's input) goes through one JSON
 * round trip first, and a live run sees exactly what a replay of it will see.
 */
import { ConfigError, describeCause } from '../errors.js';
import type { ToolResult } from '../tools/types.js';

/** `value` as JSON would give it back; throws on what JSON cannot hold (cycles, BigInt). */
export function jsonClone<T>(value: T): T {
  const text = JSON.stringify(value);
  return (text === undefined ? null : JSON.parse(text)) as T;
}

/** `jsonClone`, refusing typed: `what` names the value for the message ("step \"fetch\"'s value"). */
export function journalable<T>(value: T, what: string): T {
  try {
    return jsonClone(value);
  } catch (error) {
    throw new ConfigError('config.invalid_value', `${what} must be JSON to be journaled (${describeCause(error)})`);
  }
}

/** A result the journal can hold; a native tool's unserializable output becomes an error. */
export function jsonResult(result: ToolResult): ToolResult {
  try {
    return jsonClone(result.output === undefined ? { ...result, output: null } : result);
  } catch (error) {
    const output = `the output of ${result.toolName} is not JSON (${describeCause(error)})`;
    return { callId: result.callId, toolName: result.toolName, isError: true, output, reason: 'invalid_output' };
  }
}
