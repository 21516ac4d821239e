/**
 * Walking a JSON Schema without recursion: which keywords hold subschemas (as opposed to
 * data such as `enum`, `const` or `default`), and the JSON pointer of each one. Iterative so
 * that a hostile schema nested 10,000 deep costs a loop, not a stack overflow.
 */
import { isRecord } from '../records.js';

/** Keywords whose value is one subschema. */
export const SINGLE = new Set([
  'additionalItems', 'unevaluatedItems', 'contains', 'additionalProperties', 'unevaluatedProperties',
  'propertyNames', 'not', 'if', 'then', 'else',
]);
/** Keywords whose value is an array of subschemas. */
export const ARRAY = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
/** Keywords whose value maps names to subschemas. */
export const MAP = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies']);

/** Subschemas that apply to the same instance as their parent (no descent into the data). */
export const SAME_INSTANCE = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies']);

export type SchemaObject = Record<string, unknown>;

/** A schema object, as opposed to a boolean schema or a malformed value. */
export const isSchemaObject: (value: unknown) => value is SchemaObject = isRecord;

export function escapePointer(token: string): string {
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token;
}

/** The direct object subschemas of one schema node (not following $ref). */
export function childSchemas(node: SchemaObject): SchemaObject[] {
  const children: SchemaObject[] = [];
  for (const key in node) {
    const value = node[key];
    if (Array.isArray(value)) {
      if (key === 'items' || ARRAY.has(key)) for (const child of value) if (isSchemaObject(child)) children.push(child);
    } else if (SINGLE.has(key) || key === 'items') {
      if (isSchemaObject(value)) children.push(value);
    } else if (MAP.has(key) && isSchemaObject(value)) {
      for (const name in value) if (isSchemaObject(value[name])) children.push(value[name] as SchemaObject);
    }
  }
  return children;
}

/**
 * Whether this node can validate one child value against more than one subschema:
 * `properties` and `patternProperties` both matching a key, two patterns matching it, or
 * `items` and `contains` both applying to an element.
 */
export function multipliesDescent(node: SchemaObject): boolean {
  const patterns = isSchemaObject(node['patternProperties']) ? Object.keys(node['patternProperties']).length : 0;
  if (patterns >= 2 || (patterns >= 1 && isSchemaObject(node['properties']))) return true;
  const perItem = node['items'] !== undefined || node['prefixItems'] !== undefined || node['unevaluatedItems'] !== undefined;
  return perItem && node['contains'] !== undefined;
}

/**
 * One place a subschema can stand: the root, or under a keyword that holds subschemas. The
 * value may be an object, a boolean, or something that is neither (a malformed schema,
 * which validates everything, as the oracle treats it).
 */
export interface Position {
  readonly value: unknown;
  readonly pointer: string;
  readonly parent: Position | undefined;
}

/**
 * Every subschema position, each parent before its children. `dependencies` entries that
 * are arrays are property lists (draft-07), not subschemas. Only keywords known to hold
 * subschemas are followed: what sits under `enum`, `default` or an unknown keyword is data.
 */
export function schemaPositions(root: unknown): Position[] {
  const positions: Position[] = [];
  const pending: Position[] = [{ value: root, pointer: '', parent: undefined }];
  while (pending.length > 0) {
    const current = pending.pop() as Position;
    positions.push(current);
    const node = current.value;
    if (!isSchemaObject(node)) continue;
    for (const key of Object.keys(node)) {
      // Most keys (type, description, required…) hold data: no pointer is built for them.
      const isSingle = SINGLE.has(key) || key === 'items';
      if (!isSingle && !ARRAY.has(key) && !MAP.has(key)) continue;
      const value = node[key];
      const at = `${current.pointer}/${escapePointer(key)}`;
      if (Array.isArray(value)) {
        if (key === 'items' || ARRAY.has(key)) value.forEach((child, i) => pending.push({ value: child, pointer: `${at}/${i}`, parent: current }));
      } else if (isSingle) pending.push({ value, pointer: at, parent: current });
      else if (isSchemaObject(value)) {
        for (const name of Object.keys(value)) {
          const child = value[name];
          if (key === 'dependencies' && Array.isArray(child)) continue;
          pending.push({ value: child, pointer: `${at}/${escapePointer(name)}`, parent: current });
        }
      }
    }
  }
  return positions;
}

/**
 * Depth and value count of a JSON value (a schema), in one iterative pass that stops once
 * either is past `stopAt`: a schema nested 100,000 deep, or a cycle, costs a bounded loop.
 */
export function measure(value: unknown, stopAt: { readonly depth: number; readonly nodes: number }): { depth: number; nodes: number } {
  let depth = 0;
  let nodes = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0 && nodes <= stopAt.nodes && depth <= stopAt.depth) {
    const [node, level] = pending.pop() as [unknown, number];
    nodes += 1;
    if (typeof node !== 'object' || node === null) continue;
    if (level > depth) depth = level;
    for (const child of Array.isArray(node) ? node : Object.values(node)) pending.push([child, level + 1]);
  }
  return { depth, nodes };
}
