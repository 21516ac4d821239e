/**
 * Sealed schemas: the library's own deep-frozen copies of a tool's schemas, the only schema
 * objects a resolved toolset holds. An imported tool's schemas are shared with the wire
 * result (an in-process server's own objects, even), which anyone holding them can still
 * change; a copy made once, read once and frozen cannot change, so what a model is shown,
 * what validates and what was hashed stay one value for as long as the copy lives. That is
 * what lets the contract memo (contract-memo.ts) keep a tool's canonical text by identity.
 *
 * The copy keeps the schema's own key order (what a model reads) and holds data properties
 * only (never a getter). It takes exactly the plain JSON admission takes (admission.ts:
 * depth, value count, JSON values, plain objects) and gives up on anything else, which
 * admission then refuses with its exact message. The recursion is bounded by
 * MAX_SCHEMA_DEPTH, checked before each level, so a cycle or a schema nested 100,000 deep
 * ends in a give-up, not a RangeError; the value count bounds a graph of shared subobjects
 * that would unroll exponentially.
 */
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES } from '../schema/limits.js';
import type { JsonSchema } from '../tools/types.js';

/** Thrown to leave the copy: the value is not plain JSON within admission's bounds. */
const GIVE_UP: unique symbol = Symbol('not a sealable schema');

/**
 * The sealed copy of `schema` (a boolean schema is its own), or undefined when it holds
 * anything admission would refuse. Each member is read once. A getter that throws is not
 * caught: admission would meet the same throw, and whatever it does is not ours to turn into
 * something else.
 */
export function sealSchema(schema: unknown): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  try {
    return copyFrozen(schema, 1, { values: 0 }) as JsonSchema;
  } catch (thrown) {
    if (thrown === GIVE_UP) return undefined;
    throw thrown;
  }
}

/** `level` counts objects and arrays from the root's 1 and `count` every value, as measure() in walk.ts does. */
function copyFrozen(value: unknown, level: number, count: { values: number }): unknown {
  if ((count.values += 1) > MAX_SCHEMA_VALUES) throw GIVE_UP;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw GIVE_UP;
      return value;
    case 'object':
      break;
    default:
      throw GIVE_UP;
  }
  if (value === null) return null;
  if (level > MAX_SCHEMA_DEPTH) throw GIVE_UP;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (item === undefined) throw GIVE_UP; // a hole or an undefined: not JSON
      items[i] = copyFrozen(item, level + 1, count);
    }
    return Object.freeze(items);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw GIVE_UP;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === undefined) throw GIVE_UP;
    const copied = copyFrozen(member, level + 1, count);
    // Assigned, `__proto__` would set the copy's prototype instead of holding a member.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return Object.freeze(out);
}
