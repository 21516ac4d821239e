/**
 * Keywords on arrays. Items follow what the oracle (@cfworker/json-schema) does in every
 * draft, which is also what each draft says for the schemas it defines: `prefixItems`, or
 * `items` as an array (draft-07's tuple form), validate by position; then `items` as a
 * schema validates the rest, or, after a tuple `items`, `additionalItems` does.
 * `uniqueItems` hashes each item once (canonical keys) instead of comparing every pair.
 */
import { canonicalKey } from './canonical.js';
import { childPointer, type CheckList, type CompileContext } from './checklist.js';
import { plural } from './messages.js';
import { evaluate, type Node } from './node.js';
import type { Path, Run } from './run.js';
import type { SchemaObject } from '../walk.js';
import { Annotations } from './annotations.js';

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

export function compileArrayKeywords(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const { minItems, maxItems, uniqueItems } = schema;
  if (isCount(minItems)) {
    list.arrays.push((value: unknown[], at, run) => {
      if (value.length >= minItems) return true;
      run.fail(at, 'minItems', () => `must have at least ${plural(minItems, 'item', 'items')} (has ${value.length})`);
      return false;
    });
  }
  if (isCount(maxItems)) {
    list.arrays.push((value: unknown[], at, run) => {
      if (value.length <= maxItems) return true;
      run.fail(at, 'maxItems', () => `must have at most ${plural(maxItems, 'item', 'items')} (has ${value.length})`);
      return false;
    });
  }
  compileItems(schema, pointer, cx, list);
  if ('contains' in schema) compileContains(schema, cx.node(childPointer(pointer, 'contains')), list);
  if (uniqueItems === true) list.arrays.push(uniqueCheck);
  if ('unevaluatedItems' in schema) {
    const rest = cx.node(childPointer(pointer, 'unevaluatedItems'));
    list.lateArrays.push((value: unknown[], at, run, ann) => {
      const seen = ann ?? new Annotations();
      let valid = true;
      for (let i = 0; i < value.length; i += 1) {
        if (seen.hasItem(i)) continue;
        if (!evaluate(rest, value[i], run.child(at, i), run, undefined)) {
          valid = false;
          if (!run.reporting) return false;
        }
      }
      seen.allItems = true;
      return valid;
    });
  }
}

function compileItems(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const { prefixItems, items } = schema;
  const prefix = Array.isArray(prefixItems) ? prefixItems.map((_, i) => cx.node(childPointer(pointer, 'prefixItems', i))) : [];
  const tuple = Array.isArray(items) ? items.map((_, i) => cx.node(childPointer(pointer, 'items', i))) : [];
  // A tuple `items` after prefixItems continues at the same indexes, as the oracle reads it.
  const positional: Node[] = [...prefix, ...tuple.slice(prefix.length)];
  const rest =
    items !== undefined && !Array.isArray(items)
      ? cx.node(childPointer(pointer, 'items'))
      : Array.isArray(items) && 'additionalItems' in schema
        ? cx.node(childPointer(pointer, 'additionalItems'))
        : undefined;
  if (positional.length === 0 && rest === undefined) return;
  list.arrays.push((value: unknown[], at, run, ann) => {
    let valid = true;
    const end = rest === undefined ? Math.min(value.length, positional.length) : value.length;
    for (let i = 0; i < end; i += 1) {
      const node = i < positional.length ? (positional[i] as Node) : (rest as Node);
      if (!evaluate(node, value[i], run.child(at, i), run, undefined)) {
        valid = false;
        if (!run.reporting) return false;
      }
    }
    if (ann !== undefined) {
      if (rest !== undefined) ann.allItems = true;
      else ann.prefix = Math.max(ann.prefix, end);
    }
    return valid;
  });
}

function compileContains(schema: SchemaObject, contains: Node, list: CheckList): void {
  const { minContains, maxContains } = schema;
  const min = isCount(minContains) ? minContains : 1;
  const max = isCount(maxContains) ? maxContains : undefined;
  list.arrays.push((value: unknown[], at, run, ann) => {
    if (min === 0 && max === undefined && ann === undefined) return true;
    const reporting = run.reporting;
    run.reporting = false;
    let count = 0;
    for (let i = 0; i < value.length; i += 1) {
      if (!evaluate(contains, value[i], at, run, undefined)) continue;
      count += 1;
      ann?.addItem(i, run);
      // Enough matches decide, unless a maximum or annotations need every item looked at.
      if (count >= min && max === undefined && ann === undefined) break;
    }
    run.reporting = reporting;
    if (count < min) {
      run.fail(at, min === 1 ? 'contains' : 'minContains', () =>
        `must contain at least ${plural(min, 'item', 'items')} matching "contains" (has ${count})`,
      );
      return false;
    }
    if (max !== undefined && count > max) {
      run.fail(at, 'maxContains', () => `must contain at most ${plural(max, 'item', 'items')} matching "contains" (has ${count})`);
      return false;
    }
    return true;
  });
}

/** Up to this many items, comparing every pair is cheaper than building two Maps. */
const SMALL = 8;

/** O(n): scalars by value, objects and arrays by canonical key, each remembered with its index. */
function uniqueCheck(value: unknown[], at: Path | null, run: Run): boolean {
  if (value.length < 2) return true;
  run.meter.spend(value.length);
  const keys = value.map((item) => (typeof item === 'object' && item !== null ? canonicalKey(item, run) : item));
  let first = -1;
  let second = -1;
  if (keys.length <= SMALL) {
    for (let i = 1; i < keys.length && first < 0; i += 1) {
      for (let j = 0; j < i; j += 1) {
        if (keys[j] !== keys[i] || isStructured(value[j]) !== isStructured(value[i])) continue;
        [first, second] = [j, i];
        break;
      }
    }
  } else {
    // Scalars and keys in separate maps: the string "[1]" and the array [1] are different.
    const scalars = new Map<unknown, number>();
    const structured = new Map<unknown, number>();
    for (let i = 0; i < keys.length && first < 0; i += 1) {
      const seen = isStructured(value[i]) ? structured : scalars;
      const earlier = seen.get(keys[i]);
      if (earlier === undefined) seen.set(keys[i], i);
      else [first, second] = [earlier, i];
    }
  }
  if (first < 0) return true;
  run.fail(at, 'uniqueItems', () => `must not repeat items: items ${first} and ${second} are equal`);
  return false;
}

function isStructured(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
