/**
 * One iterative pass over a value before any schema sees it. It does three things:
 *
 * - refuses what is not plain JSON, naming where: Infinity and NaN (a model's `1e400`
 *   parses to Infinity, passes `type: number`, and would reach the server as null),
 *   undefined, functions, symbols, bigints, class instances, and cycles;
 * - bounds the shape: nesting past MAX_INSTANCE_DEPTH or more than MAX_INSTANCE_NODES values
 *   is refused before validation could recurse into it;
 * - measures the size (values plus string and key characters) the work allowance grows with.
 *
 * After it, the interpreter may assume plain JSON of bounded depth: it never re-checks.
 */
import { MAX_INSTANCE_DEPTH, MAX_INSTANCE_NODES } from '../limits.js';
import type { ValidationIssue } from '../validate.js';
import { pointerOf, type Path } from './run.js';

export type Measured = { readonly ok: true; readonly size: number } | { readonly ok: false; readonly issue: ValidationIssue };

/**
 * A depth-first walk on an explicit stack of parallel arrays (value, depth, key), so a value
 * of 200,000 entries costs no allocation per entry. `path` holds the keys leading to the
 * current value and `ancestors` the containers on that path, cut back to the current depth
 * as the walk moves on: that is what tells a cycle (a container that is its own ancestor)
 * from a value merely shared by two parents.
 */
export function measureInstance(root: unknown): Measured {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  const keys: (string | number)[] = [''];
  const path: (string | number)[] = [];
  const ancestors: object[] = [];
  const onPath = new Set<object>();
  // Counted when queued, so one huge array is refused before anything is queued per item.
  let count = 1;
  let size = 0;
  let depth = 0;
  const refuse = (keyword: string, message: string, upTo = depth): Measured => {
    let at: Path | null = null;
    for (let i = 0; i < upTo; i += 1) at = { parent: at, key: path[i] as string | number };
    return { ok: false, issue: { path: pointerOf(at), keyword, message } };
  };
  while (values.length > 0) {
    const value = values.pop();
    depth = depths.pop() as number;
    const key = keys.pop() as string | number;
    while (ancestors.length > depth) onPath.delete(ancestors.pop() as object);
    // Entries past `depth` are stale and never read: refuse() reads the first `depth` only.
    if (depth > 0) path[depth - 1] = key;
    size += 1;
    switch (typeof value) {
      case 'string':
        size += value.length;
        continue;
      case 'boolean':
        continue;
      case 'number':
        if (Number.isFinite(value)) continue;
        return refuse('json', `${String(value)} is not a JSON number (numbers must be finite)`);
      case 'object':
        break;
      default:
        return refuse('json', `${typeof value} is not a JSON value`);
    }
    if (value === null) continue;
    if (depth >= MAX_INSTANCE_DEPTH) return refuse('size', `the value nests deeper than ${MAX_INSTANCE_DEPTH} levels`);
    if (onPath.has(value)) return refuse('json', 'the value contains itself (a cycle), which JSON cannot');
    const isArray = Array.isArray(value);
    const proto: unknown = Object.getPrototypeOf(value);
    if (!isArray && proto !== Object.prototype && proto !== null) return refuse('json', 'a class instance is not a JSON value');
    ancestors.push(value);
    onPath.add(value);
    if (isArray) {
      if ((count += value.length) > MAX_INSTANCE_NODES) return refuse('size', `the value has more than ${MAX_INSTANCE_NODES} values`, 0);
      for (let i = value.length - 1; i >= 0; i -= 1) {
        values.push(value[i]);
        depths.push(depth + 1);
        keys.push(i);
      }
    } else {
      const record = value as Record<string, unknown>;
      const names = Object.keys(record);
      if ((count += names.length) > MAX_INSTANCE_NODES) return refuse('size', `the value has more than ${MAX_INSTANCE_NODES} values`, 0);
      for (let i = names.length - 1; i >= 0; i -= 1) {
        const name = names[i] as string;
        size += name.length;
        values.push(record[name]);
        depths.push(depth + 1);
        keys.push(name);
      }
    }
  }
  return { ok: true, size };
}
