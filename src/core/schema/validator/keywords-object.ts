/**
 * Keywords on objects. Everything loops over the value's own keys, never over the schema's
 * maps, so a schema with 10,000 properties costs nothing extra on a value with 3 keys; a
 * name is looked up in a Map, so `__proto__` or `constructor` are data like any other key.
 *
 * properties, patternProperties and additionalProperties are one check: the last applies to
 * exactly the keys the first two did not, which is known only while walking the keys.
 */
import type { LinearPattern } from '../pattern/index.js';
import { isSchemaObject, type SchemaObject } from '../walk.js';
import { Annotations } from './annotations.js';
import { childPointer, type CheckList, type CompileContext } from './checklist.js';
import { plural, quote } from './messages.js';
import { evaluate, type Node } from './node.js';
import type { Path, Run } from './run.js';

type Json = Record<string, unknown>;

const NO_NODES: readonly Node[] = [];

const hasOwn = (value: Json, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const names = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function compileObjectKeywords(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const { minProperties, maxProperties, required } = schema;
  const requiredNames = names(required);
  if (requiredNames.length > 0) {
    list.objects.push((value: Json, at, run) => {
      run.meter.spend(requiredNames.length);
      let valid = true;
      for (const name of requiredNames) {
        if (hasOwn(value, name)) continue;
        run.fail(at, 'required', () => `must have the required property ${quote(name)}`);
        if (!run.reporting) return false;
        valid = false;
      }
      return valid;
    });
  }
  if (isCount(minProperties) || isCount(maxProperties)) {
    const min = isCount(minProperties) ? minProperties : 0;
    const max = isCount(maxProperties) ? maxProperties : Infinity;
    list.objects.push((value: Json, at, run) => {
      const count = keysOf(value, run).length;
      if (count >= min && count <= max) return true;
      run.fail(at, count < min ? 'minProperties' : 'maxProperties', () =>
        `must have ${count < min ? `at least ${plural(min, 'property', 'properties')}` : `at most ${plural(max, 'property', 'properties')}`} (has ${count})`,
      );
      return false;
    });
  }
  compileDependencies(schema, pointer, cx, list);
  if ('propertyNames' in schema) {
    const node = cx.node(childPointer(pointer, 'propertyNames'));
    list.objects.push((value: Json, at, run) => {
      let valid = true;
      for (const key of keysOf(value, run)) {
        const reporting = run.reporting;
        run.reporting = false;
        const passed = evaluate(node, key, null, run, undefined);
        run.reporting = reporting;
        if (passed) continue;
        run.fail(at, 'propertyNames', () => `property name ${quote(key)} does not match "propertyNames"`);
        if (!run.reporting) return false;
        valid = false;
      }
      return valid;
    });
  }
  compileProperties(schema, pointer, cx, list);
  if ('unevaluatedProperties' in schema) {
    const rest = cx.node(childPointer(pointer, 'unevaluatedProperties'));
    list.lateObjects.push((value: Json, at, run, ann) => {
      const seen = ann ?? new Annotations();
      let valid = true;
      for (const key of keysOf(value, run)) {
        if (seen.hasProperty(key)) continue;
        if (!applyRest(rest, 'unevaluatedProperties', value, key, at, run)) {
          valid = false;
          if (!run.reporting) return false;
        }
      }
      seen.allProperties = true;
      return valid;
    });
  }
}

/** Own enumerable keys, charged by count: every loop over them costs that much. */
function keysOf(value: Json, run: Run): string[] {
  const keys = Object.keys(value);
  run.meter.spend(keys.length);
  return keys;
}

/**
 * additionalProperties / unevaluatedProperties on one key. `false` (the common case) gets a
 * message naming the key on the object, not "no value is allowed here" at the key.
 */
function applyRest(rest: Node, keyword: string, value: Json, key: string, at: Path | null, run: Run): boolean {
  if (rest.verdict === false) {
    run.fail(at, keyword, () => `property ${quote(key)} is not allowed`);
    return false;
  }
  return evaluate(rest, value[key], run.child(at, key), run, undefined);
}

/** dependentRequired and dependentSchemas, and draft-07 `dependencies` (either, per name). */
function compileDependencies(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const requires = new Map<string, string[]>();
  const schemas = new Map<string, Node[]>();
  const read = (keyword: string, kind: 'names' | 'schemas' | 'either') => {
    const map = schema[keyword];
    if (!isSchemaObject(map)) return;
    for (const [name, entry] of Object.entries(map)) {
      if (Array.isArray(entry) && kind !== 'schemas') requires.set(name, [...(requires.get(name) ?? []), ...names(entry)]);
      else if (!Array.isArray(entry) && kind !== 'names') schemas.set(name, [...(schemas.get(name) ?? []), cx.node(childPointer(pointer, keyword, name))]);
    }
  };
  read('dependentRequired', 'names');
  read('dependentSchemas', 'schemas');
  read('dependencies', 'either');
  if (requires.size > 0) {
    list.objects.push((value: Json, at, run) => {
      let valid = true;
      for (const key of keysOf(value, run)) {
        const needed = requires.get(key);
        if (needed === undefined) continue;
        run.meter.spend(needed.length);
        for (const name of needed) {
          if (hasOwn(value, name)) continue;
          run.fail(at, 'dependentRequired', () => `must have property ${quote(name)} when it has ${quote(key)}`);
          if (!run.reporting) return false;
          valid = false;
        }
      }
      return valid;
    });
  }
  if (schemas.size > 0) {
    list.objects.push((value: Json, at, run, ann) => {
      let valid = true;
      for (const key of keysOf(value, run)) {
        for (const node of schemas.get(key) ?? NO_NODES) {
          if (evaluate(node, value, at, run, ann)) continue;
          if (!run.reporting) return false;
          valid = false;
        }
      }
      return valid;
    });
  }
}

function compileProperties(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  const { properties, patternProperties } = schema;
  const named = new Map<string, Node>();
  if (isSchemaObject(properties)) {
    for (const name of Object.keys(properties)) named.set(name, cx.node(childPointer(pointer, 'properties', name)));
  }
  const patterns: { readonly pattern: LinearPattern; readonly node: Node }[] = [];
  if (isSchemaObject(patternProperties)) {
    for (const source of Object.keys(patternProperties)) {
      const pattern = cx.pattern(source, childPointer(pointer, 'patternProperties'));
      patterns.push({ pattern, node: cx.node(childPointer(pointer, 'patternProperties', source)) });
    }
  }
  const rest = 'additionalProperties' in schema ? cx.node(childPointer(pointer, 'additionalProperties')) : undefined;
  if (named.size === 0 && patterns.length === 0 && rest === undefined) return;
  list.objects.push((value: Json, at, run, ann) => {
    let valid = true;
    for (const key of keysOf(value, run)) {
      let matched = false;
      const node = named.get(key);
      if (node !== undefined) {
        matched = true;
        if (!evaluate(node, value[key], run.child(at, key), run, undefined)) {
          if (!run.reporting) return false;
          valid = false;
        }
      }
      for (const { pattern, node: patterned } of patterns) {
        if (!pattern.test(key, run.meter)) continue;
        matched = true;
        if (!evaluate(patterned, value[key], run.child(at, key), run, undefined)) {
          if (!run.reporting) return false;
          valid = false;
        }
      }
      if (matched) ann?.addProperty(key, run);
      else if (rest !== undefined && !applyRest(rest, 'additionalProperties', value, key, at, run)) {
        if (!run.reporting) return false;
        valid = false;
      }
    }
    if (rest !== undefined && ann !== undefined) ann.allProperties = true;
    return valid;
  });
}
