/**
 * Finding a loop the validator would never leave: subschemas linked by edges that keep
 * validating the same instance ($ref, allOf/anyOf/oneOf, not, if/then/else,
 * dependentSchemas). A loop through `properties` or `items` is fine: each step descends
 * into a smaller piece of the data, so it ends with the data.
 */
import { SAME_INSTANCE, isSchemaObject, type SchemaObject } from './walk.js';

/** Returns the pointer of a subschema on a same-instance cycle, or undefined when none. */
export function findSameInstanceCycle(
  pointers: ReadonlyMap<SchemaObject, string>,
  lookup: Record<string, unknown>,
): string | undefined {
  const edges = (node: SchemaObject): SchemaObject[] => {
    const next: SchemaObject[] = [];
    const ref = (node as { __absolute_ref__?: string }).__absolute_ref__;
    const target = ref === undefined ? undefined : lookup[ref];
    if (isSchemaObject(target)) next.push(target);
    for (const keyword of SAME_INSTANCE) {
      const value = node[keyword];
      const members = Array.isArray(value) ? value : keyword === 'dependentSchemas' && isSchemaObject(value) ? Object.values(value) : [value];
      for (const member of members) if (isSchemaObject(member)) next.push(member);
    }
    return next;
  };

  // Iterative depth-first search with three colours: white (absent), grey (on the path), black.
  const colour = new Map<SchemaObject, 'grey' | 'black'>();
  for (const start of pointers.keys()) {
    if (colour.has(start)) continue;
    const stack: { node: SchemaObject; next: SchemaObject[] }[] = [{ node: start, next: edges(start) }];
    colour.set(start, 'grey');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: SchemaObject; next: SchemaObject[] };
      const child = top.next.pop();
      if (child === undefined) {
        colour.set(top.node, 'black');
        stack.pop();
        continue;
      }
      const seen = colour.get(child);
      if (seen === 'grey') return pointers.get(child) ?? pointers.get(top.node) ?? '';
      if (seen === undefined) {
        colour.set(child, 'grey');
        stack.push({ node: child, next: edges(child) });
      }
    }
  }
  return undefined;
}
