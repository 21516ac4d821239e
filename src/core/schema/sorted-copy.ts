/**
 * The common case of admission in one walk. Most tool schemas are small plain trees with no
 * `$ref`, no identifier and no pattern: nothing in them can be refused after the depth, size
 * and plain-JSON checks, and nothing to resolve. For those, one recursive walk checks all of
 * that and makes the private copy, with every object's members in RFC 8785 order, so the
 * same copy serves validation (which never depends on the order of a schema's keys when it
 * has no patterns or references: it looks members up by name) and the toolset hash (which
 * JSON.stringify can then write as is).
 *
 * Anything else yields undefined and takes the full admission, which gives the exact
 * refusal or compiles what needs compiling: nesting past MAX_SCHEMA_DEPTH (checked before
 * each level, so the recursion is bounded, and so are cycles), more than MAX_SCHEMA_VALUES
 * values, anything that is not plain JSON, a key JS would not keep in insertion order (an
 * integer-like key) or could not hold as data (`__proto__`), and, at any subschema position,
 * a keyword that identifies, references or needs compiling.
 */
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES } from './limits.js';
import { ARRAY, MAP, SINGLE, type SchemaObject } from './walk.js';

/** Keywords that send a subschema to the full admission (checkKeywords in admission.ts). */
const FULL = ['$ref', '$id', 'id', '$anchor', 'pattern', 'patternProperties', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

/** What a key of a subschema is, in one lookup per key (the sets in walk.ts, and FULL). */
const enum Keyword {
  Full = 1,
  Single,
  Items,
  Array,
  Map,
}
const KEYWORDS = new Map<string, Keyword>([
  ...[...SINGLE].map((key) => [key, Keyword.Single] as const),
  ...[...ARRAY].map((key) => [key, Keyword.Array] as const),
  ...[...MAP].map((key) => [key, Keyword.Map] as const),
  ['items', Keyword.Items],
  // Last, so a keyword in FULL and in a set above (patternProperties) is Full.
  ...FULL.map((key) => [key, Keyword.Full] as const),
]);

/** What a value is, as schemaPositions (walk.ts) reads it. */
const enum Role {
  Data,
  Schema,
  Schemas, // an array of subschemas
  Named, // an object of subschemas by name
  Dependencies, // `dependencies`: by name, but an array entry is a property list
}

/** Thrown to leave the walk: the full admission decides. */
const FULL_ADMISSION: unique symbol = Symbol('full admission');

export function sortedSchemaCopy(schema: unknown): SchemaObject | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  // The full admission asks `keyword in node`, which an inherited member would answer.
  for (const keyword of FULL) if (keyword in Object.prototype) return undefined;
  const count = { values: 0 };
  try {
    return copy(schema, Role.Schema, 1, count) as SchemaObject;
  } catch (thrown) {
    if (thrown === FULL_ADMISSION) return undefined;
    throw thrown;
  }
}

/** `level` counts objects and arrays from the root's 1, as measure() in walk.ts does. */
function copy(value: unknown, role: Role, level: number, count: { values: number }): unknown {
  if ((count.values += 1) > MAX_SCHEMA_VALUES) throw FULL_ADMISSION;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw FULL_ADMISSION;
      return value;
    case 'object':
      break;
    default:
      throw FULL_ADMISSION;
  }
  if (value === null) return null;
  if (level > MAX_SCHEMA_DEPTH) throw FULL_ADMISSION;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    const itemRole = role === Role.Schemas ? Role.Schema : Role.Data;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (item === undefined) throw FULL_ADMISSION; // a hole or an undefined: not JSON
      items[i] = copy(item, itemRole, level + 1, count);
    }
    return items;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw FULL_ADMISSION;
  const keys = sortedKeys(value);
  const out: SchemaObject = {};
  for (const key of keys) {
    const member: unknown = (value as SchemaObject)[key];
    let next = Role.Data;
    if (role === Role.Schema) {
      const keyword = KEYWORDS.get(key);
      if (keyword === Keyword.Full) throw FULL_ADMISSION;
      if (keyword !== undefined) next = keywordRole(keyword, key, member);
    } else if (role === Role.Named) next = Role.Schema;
    else if (role === Role.Dependencies) next = Array.isArray(member) ? Role.Data : Role.Schema;
    out[key] = copy(member, next, level + 1, count);
  }
  return out;
}

/** The role of `member` under the subschema keyword `key`, as schemaPositions (walk.ts) reads it. */
function keywordRole(keyword: Keyword, key: string, member: unknown): Role {
  if (Array.isArray(member)) return keyword === Keyword.Items || keyword === Keyword.Array ? Role.Schemas : Role.Data;
  if (keyword === Keyword.Single || keyword === Keyword.Items) return Role.Schema;
  // An object under an array keyword (`allOf: {…}`) names subschemas too.
  if (typeof member === 'object' && member !== null) return key === 'dependencies' ? Role.Dependencies : Role.Named;
  return Role.Data;
}

/** Own enumerable keys in code-unit order, or the full admission for keys a copy cannot order or hold. */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57 && /^[0-9]+$/.test(key)) || key === '__proto__') throw FULL_ADMISSION;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j -= 1;
    }
    keys[j + 1] = key;
  }
  return keys;
}
