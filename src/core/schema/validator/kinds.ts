/**
 * The seven kinds a JSON value can have, as small integers, so a node's `type` keyword is a
 * bit mask tested in one operation and its checks can be grouped by kind once, at compile
 * time, instead of re-testing `typeof` in every keyword. Integers are their own kind because
 * `type: "integer"` must tell 1 from 1.5; `type: "number"` accepts both.
 */

export const NULL = 0;
export const BOOLEAN = 1;
export const INTEGER = 2;
export const NUMBER = 3;
export const STRING = 4;
export const ARRAY = 5;
export const OBJECT = 6;
export const KIND_COUNT = 7;

/** Every kind allowed: the mask of a node without `type`. */
export const ANY_KIND = (1 << KIND_COUNT) - 1;

const MASKS: ReadonlyMap<string, number> = new Map([
  ['null', 1 << NULL],
  ['boolean', 1 << BOOLEAN],
  ['integer', 1 << INTEGER],
  ['number', (1 << INTEGER) | (1 << NUMBER)],
  ['string', 1 << STRING],
  ['array', 1 << ARRAY],
  ['object', 1 << OBJECT],
]);

/**
 * Only called on values the pre-pass admitted (plain JSON, finite numbers). An integer is a
 * number with no fraction, whatever its magnitude: 1e300 is one, as every draft says.
 */
export function kindOf(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return STRING;
    case 'number':
      return Number.isInteger(value) ? INTEGER : NUMBER;
    case 'boolean':
      return BOOLEAN;
    default:
      return value === null ? NULL : Array.isArray(value) ? ARRAY : OBJECT;
  }
}

/**
 * The mask of a `type` keyword's value (a name or an array of names). An unknown name adds
 * nothing, so a type of only unknown names matches no value, which is what the oracle does.
 */
export function typeMask(type: unknown): number | undefined {
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (names === undefined) return undefined;
  let mask = 0;
  for (const name of names) mask |= typeof name === 'string' ? (MASKS.get(name) ?? 0) : 0;
  return mask;
}

const NAMES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;

/** The name a message uses for a value's kind ("integer" reads as "number" to a model). */
export function kindName(kind: number): string {
  return kind === INTEGER ? 'number' : (NAMES[kind] ?? 'value');
}
