/**
 * The graph of subschemas linked by edges that keep validating the same value ($ref,
 * allOf/anyOf/oneOf, not, if/then/else, dependentSchemas, dependencies). Two things in it
 * would make validation unbounded: a cycle (it never ends) and fan-out (a chain of `$defs`
 * each referencing the next twice costs 2^depth evaluations of one value, from a schema of a
 * few kilobytes). A loop through `properties` or `items` is fine: each step descends into a
 * smaller piece of the data, so it ends with the data.
 */
import { SAME_INSTANCE, childSchemas, isSchemaObject, multipliesDescent, type SchemaObject } from './walk.js';

export type GraphProblem = { readonly kind: 'cycle' | 'fanout' | 'multiplying'; readonly pointer: string; readonly fanout?: number };

/** The object subschema a schema's `$ref` resolves to (undefined: no $ref, or a boolean). */
export type RefTarget = (node: SchemaObject) => SchemaObject | undefined;

/** The first problem found, or undefined. `maxFanout` caps evaluations of one value. */
export function findUnboundedValidation(
  pointers: ReadonlyMap<SchemaObject, string>,
  refTarget: RefTarget,
  maxFanout: number,
): GraphProblem | undefined {
  const edges = (node: SchemaObject): SchemaObject[] => {
    const next: SchemaObject[] = [];
    const target = refTarget(node);
    if (target !== undefined) next.push(target);
    for (const keyword of SAME_INSTANCE) {
      const value = node[keyword];
      const mapLike = (keyword === 'dependentSchemas' || keyword === 'dependencies') && isSchemaObject(value);
      const members = Array.isArray(value) ? value : mapLike ? Object.values(value) : [value];
      for (const member of members) if (isSchemaObject(member)) next.push(member);
    }
    return next;
  };

  // Iterative depth-first search: grey nodes are on the current path (a grey child closes a
  // cycle); a node turns black with its fan-out, the evaluations one value costs from there.
  const fanout = new Map<SchemaObject, number>();
  const grey = new Set<SchemaObject>();
  for (const start of pointers.keys()) {
    if (fanout.has(start)) continue;
    const stack: { node: SchemaObject; children: SchemaObject[]; next: number }[] = [{ node: start, children: edges(start), next: 0 }];
    grey.add(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const child = top.children[top.next];
      if (child === undefined) {
        const total = top.children.reduce((sum, c) => sum + (fanout.get(c) ?? 0), 1);
        if (total > maxFanout) return { kind: 'fanout', pointer: pointers.get(top.node) ?? '', fanout: total };
        fanout.set(top.node, total);
        grey.delete(top.node);
        stack.pop();
        continue;
      }
      top.next += 1;
      if (grey.has(child)) return { kind: 'cycle', pointer: pointers.get(child) ?? pointers.get(top.node) ?? '' };
      if (!fanout.has(child)) {
        grey.add(child);
        stack.push({ node: child, children: edges(child), next: 0 });
      }
    }
  }
  return undefined;
}

/**
 * Recursion through the data is fine on its own (each step descends), but not when some step
 * validates one child value against two subschemas: then every level doubles the work, and a
 * value 30 levels deep costs 2^30. Conservatively: a recursive schema (a cycle through $ref)
 * may not contain a node that multiplies its descent.
 */
export function findMultiplyingRecursion(pointers: ReadonlyMap<SchemaObject, string>, refTarget: RefTarget): GraphProblem | undefined {
  const multiplier = [...pointers.keys()].find(multipliesDescent);
  if (multiplier === undefined) return undefined;
  const edges = (node: SchemaObject): SchemaObject[] => {
    const target = refTarget(node);
    return target === undefined ? childSchemas(node) : [...childSchemas(node), target];
  };
  const done = new Set<SchemaObject>();
  const grey = new Set<SchemaObject>();
  for (const start of pointers.keys()) {
    if (done.has(start)) continue;
    const stack: { node: SchemaObject; children: SchemaObject[] }[] = [{ node: start, children: edges(start) }];
    grey.add(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const child = top.children.pop();
      if (child === undefined) {
        grey.delete(top.node);
        done.add(top.node);
        stack.pop();
      } else if (grey.has(child)) {
        return { kind: 'multiplying', pointer: pointers.get(multiplier) ?? '' };
      } else if (!done.has(child)) {
        grey.add(child);
        stack.push({ node: child, children: edges(child) });
      }
    }
  }
  return undefined;
}
