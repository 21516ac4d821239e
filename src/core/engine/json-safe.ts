/**
 * What enters history enters the journal, and what comes back from the journal is JSON. So
 * every value an agent keeps (a response, a result, an ask's input) goes through one JSON
 * round trip first, and a live run sees exactly what a replay of it will see.
 */
import { ConfigError, describeCause } from '../errors.js';
import type { ToolResult } from '../tools/types.js';

/**
 * `value` as JSON would give it back; throws on what JSON cannot hold (cycles, BigInt). A value
 * that already is plain JSON (the usual case: a model's response, a tool's result) is returned
 * as it is, checked by a walk that allocates nothing; anything else (a Date, a Map, an
 * `undefined` member, -0) goes through one JSON round trip.
 */
export function jsonClone<T>(value: T): T {
  if (isPlainJson(value, 0)) return value;
  const text = JSON.stringify(value);
  return (text === undefined ? null : JSON.parse(text)) as T;
}

/** Deeper than this is left to the round trip, which bounds itself (a RangeError). */
const MAX_PLAIN_DEPTH = 64;

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i += 1) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      if ('toJSON' in value) return false;
      for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
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
