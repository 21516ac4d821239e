/**
 * What enters history enters the journal, and what comes back from the journal is JSON. So
 * every value an agent keeps (a response, a result and its audit, an ask's input, a step's
 * value) is taken in as the engine's own deep copy of it as JSON, frozen. A live run then sees
 * exactly what a replay of it sees (frozen in both, whichever store), nothing outside can
 * change a journaled fact afterwards (an adapter reusing its response object, a tool mutating
 * the output it returned), and an entry built only from such values can be kept by reference.
 *
 * "Frozen" is the whole mark: an entry that is frozen is taken to be frozen all the way down
 * (the JournalStore contract says so). A WeakSet of sealed entries would prove it, but costs
 * more than everything else a journal write does.
 */
import { ConfigError, describeCause } from '../errors.js';
import type { ToolResult } from '../tools/types.js';
import type { JournalEntry } from './entries.js';

/** Deeper than this is left to a JSON round trip, which bounds itself (a RangeError). */
const MAX_PLAIN_DEPTH = 64;

const NOT_PLAIN = Symbol('not plain JSON');

/**
 * The engine's own copy of `value` as JSON would give it back, frozen. Throws on what JSON
 * cannot hold (cycles, BigInt); a Date, a Map, an `undefined` member or -0 come out as JSON
 * makes them. Plain JSON is copied in one walk, the rest goes through a JSON round trip.
 */
export function ownJson<T>(value: T): T {
  const copy = copyFrozen(value, 0);
  if (copy !== NOT_PLAIN) return copy as T;
  const text = JSON.stringify(value);
  if (text === undefined) return null as T;
  const parsed: unknown = JSON.parse(text);
  // JSON.parse gives plain values, so only depth can stop the walk: freeze that in place.
  const again = copyFrozen(parsed, 0);
  return (again === NOT_PLAIN ? deepFreeze(parsed) : again) as T;
}

/**
 * The entry as a store may keep it: itself, frozen, when each member is a primitive or already
 * frozen (the engine builds entries from `ownJson` values); otherwise its own frozen copy.
 */
export function sealEntry(entry: JournalEntry): JournalEntry {
  if (Object.isFrozen(entry)) return entry;
  for (const key in entry) {
    const member: unknown = (entry as unknown as Record<string, unknown>)[key];
    if (typeof member === 'object' && member !== null ? !Object.isFrozen(member) : !isPlainPrimitive(member)) return ownJson(entry);
  }
  return Object.freeze(entry);
}

/** An entry from outside the engine, when it is not frozen: always its own frozen copy. */
export function sealCopy(entry: JournalEntry): JournalEntry {
  return Object.isFrozen(entry) ? entry : ownJson(entry);
}

/** `ownJson`, refusing typed: `what` names the value for the message ("step \"fetch\"'s value"). */
export function journalable<T>(value: T, what: string): T {
  try {
    return ownJson(value);
  } catch (error) {
    throw new ConfigError('config.invalid_value', `${what} must be JSON to be journaled (${describeCause(error)})`);
  }
}

/** A result the journal can hold; a native tool's unserializable output becomes an error. */
export function jsonResult(result: ToolResult): ToolResult {
  try {
    return ownJson(result.output === undefined ? { ...result, output: null } : result);
  } catch (error) {
    const output = `the output of ${result.toolName} is not JSON (${describeCause(error)})`;
    return ownJson({ callId: result.callId, toolName: result.toolName, isError: true, output, reason: 'invalid_output' });
  }
}

function isPlainPrimitive(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return value === null;
  }
}

/** A frozen copy of plain JSON in one walk; NOT_PLAIN as soon as something is not plain JSON. */
function copyFrozen(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return isPlainPrimitive(value) ? value : NOT_PLAIN;
  if (depth >= MAX_PLAIN_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const member = copyFrozen(value[i], depth + 1);
      if (member === NOT_PLAIN) return NOT_PLAIN;
      copy[i] = member;
    }
    return Object.freeze(copy);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const member = copyFrozen((value as Record<string, unknown>)[key], depth + 1);
    if (member === NOT_PLAIN) return NOT_PLAIN;
    // A member named __proto__ (JSON.parse makes one) must stay data, not become the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
    else copy[key] = member;
  }
  return Object.freeze(copy);
}

/** Freezes what JSON.parse made, in place; iterative, as it may be deeper than the stack allows. */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    Object.freeze(next);
    for (const key in next) stack.push((next as Record<string, unknown>)[key]);
  }
  return value;
}
