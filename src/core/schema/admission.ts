/**
 * Admission: a schema enters a toolset only if it is inside the subset the eval-free
 * validator handles correctly and in bounded time. Outside it is a `schema.unsupported`
 * ConfigError naming the tool and the JSON pointer of the offending keyword, raised when the
 * tool is admitted, never at first call. What passes is compiled once, here.
 *
 * The subset: draft 2020-12 (draft-07 and older when the root's $schema says so) without
 * $dynamicRef/$dynamicAnchor (nor their 2019-09 $recursiveRef/$recursiveAnchor); every $ref
 * resolvable inside the schema itself (so no remote $ref) to a subschema; every `pattern`
 * and `patternProperties` key accepted by the linear-time pattern engine; JSON nesting at
 * most MAX_SCHEMA_DEPTH; and no cycle (or fan-out past MAX_SCHEMA_FANOUT) of subschemas that
 * apply to the same instance, which would validate forever (or for minutes).
 *
 * Every measurement runs on loops or after the depth check, so a schema nested 100,000 deep
 * is refused, never a RangeError. The admitted object is never touched: everything after the
 * checks works on a private copy, so what was checked is what validates.
 *
 * Every refusal is raised here. Compiling a schema into its validator can refuse only a
 * pattern, so a schema with a `pattern` or `patternProperties` anywhere is compiled here too;
 * any other is compiled on its first validation, from the private copy: a toolset of 10,000
 * tools is resolved at every spawn, and a model calls a few of them.
 */
import { ConfigError } from '../errors.js';
import { findMultiplyingRecursion, findUnboundedValidation } from './cycles.js';
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_FANOUT,
  MAX_SCHEMA_PATTERN_CLASSES,
  MAX_SCHEMA_PATTERN_STATES,
  MAX_SCHEMA_VALUES,
} from './limits.js';
import { compilePattern, type LinearPattern } from './pattern/index.js';
import type { CompiledSchema, ValidationOutcome } from './validate.js';
import { compileSchema } from './validator/compile.js';
import { dialectOf, resolveReferences, UnresolvableReference, type Dialect } from './validator/references.js';
import { sortedSchemaCopy } from './sorted-copy.js';
import { compiledValidator } from './validator/validator.js';
import { isSchemaObject, measure, schemaPositions, type Position, type SchemaObject } from './walk.js';

const DYNAMIC = ['$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

type Refuse = (pointer: string, why: string) => ConfigError;

/** `where` names the schema for messages, e.g. `mcp:inprocess: tool "search" parameters`. */
export function admitSchema(schema: unknown, where: string): CompiledSchema {
  return admitSchemaForm(schema, () => where).validator;
}

export interface AdmittedSchema {
  readonly validator: CompiledSchema;
  /**
   * The private copy with its members in RFC 8785 order, when the schema took the one-walk
   * path (sorted-copy.ts): JSON.stringify writes it as canonical JSON. Never mutated.
   */
  readonly form: SchemaObject | undefined;
}

/** As admitSchema; `where` is only called to word a refusal, so naming costs nothing otherwise. */
export function admitSchemaForm(schema: unknown, where: () => string): AdmittedSchema {
  const form = sortedSchemaCopy(schema);
  if (form !== undefined) {
    // No pattern and no reference (sorted-copy.ts): compiling it can refuse nothing.
    const compile = () => compileAdmitted(schemaPositions(form), new Map(), dialectOf(form), () => {
      throw new Error('internal: a schema without patterns asked to compile one');
    });
    return { validator: new LazyValidator(compile), form };
  }
  const refuse: Refuse = (pointer, why) => {
    const at = pointer === '' ? '(root)' : pointer.length > 200 ? `${pointer.slice(0, 199)}…` : pointer;
    return new ConfigError('schema.unsupported', `${where()} at ${at}: ${why}`);
  };
  return { validator: admitFully(schema, refuse), form: undefined };
}

/**
 * A pattern-free schema's validator, compiled on its first validation and kept. Until then
 * `compile` holds the private copy (and its resolved references) only.
 */
class LazyValidator implements CompiledSchema {
  private compiled: CompiledSchema | undefined;

  constructor(private readonly compile: () => CompiledSchema) {}

  validate(value: unknown): ValidationOutcome {
    this.compiled ??= this.compile();
    return this.compiled.validate(value);
  }
}

/** Every check, one at a time, each refusal exact; for whatever the one-walk path declined. */
function admitFully(schema: unknown, refuse: Refuse): CompiledSchema {
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) throw refuse('', 'a schema must be an object or a boolean');
  const shape = measure(schema, { depth: MAX_SCHEMA_DEPTH, nodes: MAX_SCHEMA_VALUES });
  if (shape.depth > MAX_SCHEMA_DEPTH) throw refuse('', `nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (shape.nodes > MAX_SCHEMA_VALUES) throw refuse('', `has more than ${MAX_SCHEMA_VALUES} values`);
  // The private copy, checked to be plain JSON as it is made. Depth is bounded above, so its
  // recursion is too; it also unshares objects a host reused, so every position is its own.
  const copy = copyJson(schema);
  if (copy === NOT_JSON) throw refuse('', 'a schema must be plain JSON (no functions, class instances or cycles)');
  const positions = schemaPositions(copy);
  const { identifies, patterns: hasPatterns } = checkKeywords(positions, refuse);
  const dialect = dialectOf(copy);
  // Most tool schemas have no $ref, $id or anchor: nothing to resolve.
  let targets = new Map<string, string>();
  try {
    if (identifies) targets = resolveReferences(positions, dialect);
  } catch (error) {
    if (error instanceof UnresolvableReference) throw refuse(error.pointer, error.why);
    throw error;
  }
  // Without a $ref the schema is a tree: nothing in it can cycle or fan out.
  if (targets.size > 0) checkBounded(positions, targets, refuse);
  if (hasPatterns) return compileAdmitted(positions, targets, dialect, refuse);
  return new LazyValidator(() => compileAdmitted(schemaPositions(copy), targets, dialect, refuse));
}

function compileAdmitted(positions: readonly Position[], targets: ReadonlyMap<string, string>, dialect: Dialect, refuse: Refuse): CompiledSchema {
  const patterns = new Map<string, LinearPattern>();
  let states = 0;
  let classes = 0;
  const root = compileSchema({
    positions,
    targets,
    dialect,
    pattern: (source, pointer) => {
      const known = patterns.get(source);
      if (known !== undefined) return known;
      let compiled: LinearPattern;
      try {
        compiled = compilePattern(source);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        // The engine's reasons read as predicates: "uses a backreference (\\1), which is not supported".
        throw refuse(pointer, `pattern ${JSON.stringify(source.slice(0, 120))} ${reason.slice(0, 200)}`);
      }
      patterns.set(source, compiled);
      states += compiled.states;
      classes += compiled.classes;
      if (states > MAX_SCHEMA_PATTERN_STATES || classes > MAX_SCHEMA_PATTERN_CLASSES) {
        throw refuse(pointer, `its patterns add up to more than ${MAX_SCHEMA_PATTERN_STATES} instructions or ${MAX_SCHEMA_PATTERN_CLASSES} character classes`);
      }
      return compiled;
    },
  });
  return compiledValidator(root);
}

/**
 * Refuses, anywhere in the schema, the dynamic keywords and malformed $ref and patterns.
 * Says whether any subschema references or identifies one ($ref, $id, id, $anchor), and
 * whether any holds a pattern to compile (`pattern`, `patternProperties`).
 */
function checkKeywords(positions: readonly Position[], refuse: Refuse): { identifies: boolean; patterns: boolean } {
  let identifies = false;
  let patterns = false;
  for (const { value: node, pointer } of positions) {
    if (!isSchemaObject(node)) continue;
    if ('$ref' in node || '$id' in node || 'id' in node || '$anchor' in node) identifies = true;
    if ('pattern' in node || 'patternProperties' in node) patterns = true;
    for (const keyword of DYNAMIC) {
      if (keyword in node) throw refuse(`${pointer}/${keyword}`, `${keyword} is outside the supported subset`);
    }
    if ('$ref' in node && typeof node['$ref'] !== 'string') throw refuse(`${pointer}/$ref`, '$ref must be a string');
    if ('pattern' in node && typeof node['pattern'] !== 'string') throw refuse(`${pointer}/pattern`, 'a pattern must be a string');
  }
  return { identifies, patterns };
}

/** The cycle, fan-out and multiplying-recursion refusals over the resolved $ref graph. */
function checkBounded(positions: readonly Position[], targets: ReadonlyMap<string, string>, refuse: Refuse): void {
  const pointers = new Map<SchemaObject, string>();
  const byPointer = new Map<string, unknown>();
  for (const { value, pointer } of positions) {
    byPointer.set(pointer, value);
    if (isSchemaObject(value)) pointers.set(value, pointer);
  }
  const refTarget = (node: SchemaObject): SchemaObject | undefined => {
    const pointer = pointers.get(node);
    const target = pointer === undefined ? undefined : byPointer.get(targets.get(pointer) ?? '\0');
    return isSchemaObject(target) ? target : undefined;
  };
  const problem = findUnboundedValidation(pointers, refTarget, MAX_SCHEMA_FANOUT);
  if (problem?.kind === 'cycle') {
    throw refuse(problem.pointer, 'subschemas reference each other without descending into the data (a cycle that never ends)');
  }
  if (problem?.kind === 'fanout') {
    throw refuse(problem.pointer, `one value would be validated ${problem.fanout ?? 'too many'}+ times through $ref/allOf/anyOf (limit ${MAX_SCHEMA_FANOUT})`);
  }
  const multiplying = findMultiplyingRecursion(pointers, refTarget);
  if (multiplying !== undefined) {
    throw refuse(multiplying.pointer, 'a recursive schema validates one value against several subschemas here, which doubles the work at every level');
  }
}

const NOT_JSON: unique symbol = Symbol('not JSON');

/**
 * A deep copy of plain JSON, or NOT_JSON: only what JSON can carry, since the schema is
 * hashed and sent to models too. Properties are defined, not assigned, so a `__proto__` key
 * stays data. Recursive, but only ever called on a value whose depth was bounded first.
 */
function copyJson(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_JSON;
  if (typeof value !== 'object') return NOT_JSON;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const copied = copyJson(item);
      if (copied === NOT_JSON) return NOT_JSON;
      items.push(copied);
    }
    return items;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_JSON;
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const copied = copyJson(item);
    if (copied === NOT_JSON) return NOT_JSON;
    entries.push([key, copied]);
  }
  return Object.fromEntries(entries);
}
