/**
 * Admission: a schema enters a toolset only if it is inside the subset the eval-free
 * validator handles correctly and in bounded time. Outside it is a `schema.unsupported`
 * ConfigError naming the tool and the JSON pointer of the offending keyword, raised when the
 * tool is admitted, never at first call. What passes is compiled once, here.
 *
 * The subset: draft 2020-12 without $dynamicRef/$dynamicAnchor (nor their 2019-09
 * $recursiveRef/$recursiveAnchor); every $ref resolvable inside the schema itself (so no
 * remote $ref); every `pattern` and `patternProperties` key a valid `u`-flag RegExp; JSON
 * nesting at most MAX_SCHEMA_DEPTH; no pattern with nested repetition; and no cycle (or
 * fan-out past MAX_SCHEMA_FANOUT) of subschemas that apply to the same instance, which would
 * validate forever (or for minutes).
 */
import { dereference, type Schema } from '@cfworker/json-schema';
import { ConfigError } from '../errors.js';
import { findMultiplyingRecursion, findUnboundedValidation } from './cycles.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_FANOUT } from './limits.js';
import { hasNestedRepetition } from './pattern-safety.js';
import { compiledValidator, type CompiledSchema } from './validate.js';
import { isSchemaObject, measure, subschemas, type SchemaObject } from './walk.js';

const DYNAMIC = ['$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

/** `where` names the schema for messages, e.g. `mcp:inprocess: tool "search" parameters`. */
export function admitSchema(schema: unknown, where: string): CompiledSchema {
  const refuse = (pointer: string, why: string) =>
    new ConfigError('schema.unsupported', `${where} at ${pointer === '' ? '(root)' : pointer}: ${why}`);
  if (typeof schema === 'boolean') return compiledValidator(schema, {});
  if (!isSchemaObject(schema)) throw refuse('', 'a schema must be an object or a boolean');
  if (measure(schema).depth > MAX_SCHEMA_DEPTH) {
    throw refuse('', `nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  // Most tool schemas reference nothing: no $ref, $id or anchor. Nothing in them can resolve
  // wrongly, cycle or fan out, so they are checked in one walk and validated as they are.
  if (!isJsonData(schema)) throw refuse('', 'a schema must be plain JSON (no functions, class instances or cycles)');
  const simple = checkKeywords(schema, refuse);
  // A private copy either way: the admitted schema may be shared (an in-process server's own
  // objects), and what was checked must be what validates, whatever happens to it later.
  if (simple.referenceFree) return compiledValidator(withoutUnsafeFormats(structuredClone(schema)), {}, { checksUniqueness: simple.checksUniqueness });

  // The validator annotates the schema it resolves; the admitted one stays untouched.
  const copy = withoutUnsafeFormats(structuredClone(schema) as SchemaObject);
  const pointers = new Map<SchemaObject, string>();
  for (const { node, pointer } of subschemas(copy)) pointers.set(node, pointer);
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy as Schema) as Record<string, unknown>;
  } catch (error) {
    throw refuse('', `cannot be resolved: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const [node, pointer] of pointers) {
    const target = (node as { __absolute_ref__?: string }).__absolute_ref__;
    if (target === undefined) continue;
    const resolved = lookup[target];
    const ref = JSON.stringify(String(node['$ref']).slice(0, 120));
    if (resolved === undefined) {
      const kind = String(node['$ref']).startsWith('#') ? 'does not resolve inside the schema' : 'is a remote reference';
      throw refuse(`${pointer}/$ref`, `$ref ${ref} ${kind}`);
    }
    // Only subschemas the walk above checked may be referenced: a target under an unknown
    // keyword ("x-evil": { "pattern": … }) would smuggle in what the checks refuse.
    if (typeof resolved === 'object' && !pointers.has(resolved as SchemaObject)) {
      throw refuse(`${pointer}/$ref`, `$ref ${ref} points outside the schema's subschemas`);
    }
  }
  const problem = findUnboundedValidation(pointers, lookup, MAX_SCHEMA_FANOUT);
  if (problem?.kind === 'cycle') {
    throw refuse(problem.pointer, 'subschemas reference each other without descending into the data (a cycle that never ends)');
  }
  if (problem?.kind === 'fanout') {
    throw refuse(problem.pointer, `one value would be validated ${problem.fanout ?? 'too many'}+ times through $ref/allOf/anyOf (limit ${MAX_SCHEMA_FANOUT})`);
  }
  const multiplying = findMultiplyingRecursion(pointers, lookup);
  if (multiplying !== undefined) {
    throw refuse(multiplying.pointer, 'a recursive schema validates one value against several subschemas here, which doubles the work at every level');
  }
  return compiledValidator(copy, lookup, { checksUniqueness: simple.checksUniqueness });
}

/**
 * `format: "url"` (not a standard format; "uri" is) is checked by the validator with a
 * regular expression that backtracks exponentially on a 40-character string. In 2020-12 a
 * format is an annotation unless a vocabulary asserts it, so the private copy drops it.
 */
function withoutUnsafeFormats<T>(schema: T): T {
  for (const { node } of subschemas(schema)) if (node['format'] === 'url') delete node['format'];
  return schema;
}

/**
 * One walk over every subschema: refuses what is outside the subset anywhere, and reports
 * whether the schema references anything (so needs resolving) and uses uniqueItems.
 */
function checkKeywords(
  schema: SchemaObject,
  refuse: (pointer: string, why: string) => ConfigError,
): { referenceFree: boolean; checksUniqueness: boolean } {
  let referenceFree = true;
  let checksUniqueness = false;
  for (const { node, pointer } of subschemas(schema)) {
    for (const keyword of DYNAMIC) {
      if (keyword in node) throw refuse(`${pointer}/${keyword}`, `${keyword} is outside the supported subset`);
    }
    if ('$ref' in node) {
      if (typeof node['$ref'] !== 'string') throw refuse(`${pointer}/$ref`, '$ref must be a string');
      referenceFree = false;
    }
    if ('$id' in node || 'id' in node || '$anchor' in node) referenceFree = false;
    if (node['uniqueItems'] === true) checksUniqueness = true;
    if ('pattern' in node) checkPattern(node['pattern'], `${pointer}/pattern`, refuse);
    if (isSchemaObject(node['patternProperties'])) {
      for (const key of Object.keys(node['patternProperties'])) checkPattern(key, `${pointer}/patternProperties`, refuse);
    }
  }
  return { referenceFree, checksUniqueness };
}

function checkPattern(pattern: unknown, pointer: string, refuse: (p: string, why: string) => ConfigError): void {
  if (typeof pattern !== 'string') throw refuse(pointer, 'a pattern must be a string');
  const shown = JSON.stringify(pattern.slice(0, 120));
  try {
    new RegExp(pattern, 'u');
  } catch {
    throw refuse(pointer, `${shown} is not a valid u-flag regular expression`);
  }
  // A test is synchronous: exponential backtracking would freeze the host past every timer.
  if (hasNestedRepetition(pattern)) {
    throw refuse(pointer, `${shown} repeats a group of repeatable elements (catastrophic backtracking)`);
  }
}

/** Only what JSON can carry: the schema is cloned, hashed and sent to models. */
function isJsonData(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
      continue;
    }
    if (typeof value !== 'object') return false;
    const proto: unknown = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
    for (const child of Object.values(value)) pending.push(child);
  }
  return true;
}
