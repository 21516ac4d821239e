/**
 * Equality of JSON values in linear time. `enum`, `const` and `uniqueItems` compare values
 * structurally (key order does not matter, 1 equals 1.0); comparing pairwise makes
 * `uniqueItems` over 5,000 objects 12.5 million deep comparisons. Instead every value gets a
 * canonical key, a string equal exactly when the values are equal, and the comparisons
 * become Set lookups.
 *
 * The key is a self-delimiting encoding, cheaper than JSON because nothing is escaped:
 * strings are length-prefixed (`s3:abc`), numbers are their shortest decimal (`n1`; 1.0 and
 * -0 print as 1 and 0), objects list their keys sorted, each length-prefixed. Every piece
 * either has a fixed end or says its length, so two different values never share a key.
 *
 * A key is computed at most once per object or array per pass (cached on the Run), and
 * charged to the meter by its length (building it copies that many characters) plus a fixed
 * cost per lookup and per build.
 */
import type { Run } from './run.js';

/**
 * The canonical key of a JSON value. With a run, it is charged and cached; without one (at
 * compile time, over the schema's own enum and const) it is neither.
 */
export function canonicalKey(value: unknown, run?: Run): string {
  if (typeof value !== 'object' || value === null) {
    const key = scalarKey(value);
    run?.meter.spend(key.length);
    return key;
  }
  const cache = run === undefined ? undefined : (run.keys ??= new Map());
  run?.meter.spend(CACHE_COST);
  const known = cache?.get(value);
  if (known !== undefined) return known;
  // Parts joined once: one flat string, instead of a rope rebuilt at every append.
  const parts: string[] = [];
  if (Array.isArray(value)) {
    parts.push('[');
    for (const item of value) parts.push(typeof item === 'object' && item !== null ? canonicalKey(item, run) : scalarKey(item));
    parts.push(']');
  } else {
    const record = value as Record<string, unknown>;
    parts.push('{');
    for (const name of Object.keys(record).sort()) {
      const item = record[name];
      parts.push(String(name.length), ':', name, typeof item === 'object' && item !== null ? canonicalKey(item, run) : scalarKey(item));
    }
    parts.push('}');
  }
  const key = parts.join('');
  run?.meter.spend(key.length + BUILD_COST);
  cache?.set(value, key);
  return key;
}

/**
 * Work units beyond the characters: a cache lookup, and building a key (listing and sorting
 * the keys, storing the result). Calibrated so that a value of many small arrays costs about
 * as much time per unit as anything else (see limits.ts).
 */
const CACHE_COST = 2;
const BUILD_COST = 8;

function scalarKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value.length}:${value}`;
    case 'number':
      return `n${value}|`;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return 'z';
  }
}

/** A set of JSON values (an enum, a const): scalars by value, the rest by canonical key. */
export class ValueSet {
  private readonly scalars = new Set<unknown>();
  private readonly structured = new Set<string>();
  readonly size: number;

  constructor(values: readonly unknown[]) {
    for (const value of values) {
      if (typeof value === 'object' && value !== null) this.structured.add(canonicalKey(value));
      else this.scalars.add(value);
    }
    this.size = values.length;
  }

  has(value: unknown, run: Run): boolean {
    run.meter.spend(1);
    if (typeof value !== 'object' || value === null) return this.scalars.has(value);
    // No structured member: an object or array cannot match, and needs no key.
    return this.structured.size > 0 && this.structured.has(canonicalKey(value, run));
  }
}
