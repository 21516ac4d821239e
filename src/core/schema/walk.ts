/**
 * Walking a JSON Schema without recursion: which keywords hold subschemas (as opposed to
 * data such as `enum`, `const` or `default`), and the JSON pointer of each one. Iterative so
 * that a hostile schema nested 10,000 deep costs a loop, not a stack overflow.
 */

/** Keywords whose value is one subschema. */
const SINGLE = new Set([
  'additionalItems', 'unevaluatedItems', 'contains', 'additionalProperties', 'unevaluatedProperties',
  'propertyNames', 'not', 'if', 'then', 'else',
]);
/** Keywords whose value is an array of subschemas. */
const ARRAY = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies']);

/** Subschemas that apply to the same instance as their parent (no descent into the data). */
export const SAME_INSTANCE = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies']);

export type SchemaObject = Record<string, unknown>;

export interface Subschema {
  readonly node: SchemaObject;
  readonly pointer: string;
}

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

/** Every object subschema, root first; boolean subschemas have nothing to check. */
export function* subschemas(root: unknown): Generator<Subschema> {
  if (!isSchemaObject(root)) return;
  const pending: Subschema[] = [{ node: root, pointer: '' }];
  while (pending.length > 0) {
    const current = pending.pop() as Subschema;
    yield current;
    for (const key in current.node) {
      // Most keys (type, description, required…) hold data: no pointer is built for them.
      const isSingle = SINGLE.has(key) || key === 'items';
      if (!isSingle && !ARRAY.has(key) && !MAP.has(key)) continue;
      const value = current.node[key];
      const at = `${current.pointer}/${escapePointer(key)}`;
      const push = (child: unknown, pointer: string) => {
        if (isSchemaObject(child)) pending.push({ node: child, pointer });
      };
      if (Array.isArray(value)) {
        if (key === 'items' || ARRAY.has(key)) value.forEach((child, i) => push(child, `${at}/${i}`));
      } else if (isSingle) push(value, at);
      else if (MAP.has(key) && isSchemaObject(value)) {
        for (const name in value) push(value[name], `${at}/${escapePointer(name)}`);
      }
    }
  }
}

/**
 * Depth, value count and longest array of a JSON value, in one iterative pass that stops
 * counting once any of them is past what validation accepts anyway.
 */
export function measure(value: unknown): { depth: number; nodes: number; longestArray: number } {
  let depth = 0;
  let nodes = 0;
  let longestArray = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0 && nodes <= 1_000_000 && depth <= 10_000) {
    const [node, level] = pending.pop() as [unknown, number];
    nodes += 1;
    if (typeof node !== 'object' || node === null) continue;
    if (level > depth) depth = level;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (Array.isArray(node) && node.length > longestArray) longestArray = node.length;
    for (const child of children) pending.push([child, level + 1]);
  }
  return { depth, nodes, longestArray };
}
