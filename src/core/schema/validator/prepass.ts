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
  const quick = smallSize(root, 0, { left: SMALL_VALUES });
  return quick >= 0 ? { ok: true, size: quick } : measureFully(root);
}

/** What the recursive first try takes on; anything bigger, deeper or refused takes the full walk. */
const SMALL_DEPTH = 16;
const SMALL_VALUES = 4_096;

/**
 * The size measureFully would give a small plain value, in one recursive pass that allocates
 * nothing per value (most tool arguments and results are a handful of values, and the full
 * walk's stacks cost more than the walk), or -1: the value is deeper, bigger or not plain,
 * and the full walk decides and names what is wrong. A cycle nests without end, so it comes
 * back -1 at SMALL_DEPTH.
 */
function smallSize(value: unknown, depth: number, budget: { left: number }): number {
  if ((budget.left -= 1) < 0) return -1;
  switch (typeof value) {
    case 'string':
      return 1 + value.length;
    case 'boolean':
      return 1;
    case 'number':
      return Number.isFinite(value) ? 1 : -1;
    case 'object':
      break;
    default:
      return -1;
  }
  if (value === null) return 1;
  if (depth >= SMALL_DEPTH) return -1;
  let size = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const item = smallSize(value[i], depth + 1, budget);
      if (item < 0) return -1;
      size += item;
    }
    return size;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return -1;
  for (const name of Object.keys(value)) {
    const member = smallSize((value as Record<string, unknown>)[name], depth + 1, budget);
    if (member < 0) return -1;
    size += name.length + member;
  }
  return size;
}

function measureFully(root: unknown): Measured {
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
