/**
 * Compiling: one Node per subschema position, created first so that children and $ref
 * targets can be linked by pointer whatever order they compile in (a recursive schema
 * links to a node that is still empty), then each filled with its checks. Nothing here
 * recurses: positions come as a flat list.
 */
import type { LinearPattern } from '../pattern/index.js';
import { isSchemaObject, type Position, type SchemaObject } from '../walk.js';
import { CheckList, type CompileContext } from './checklist.js';
import { compileArrayKeywords } from './keywords-array.js';
import { compileApplicators, compileValueKeywords } from './keywords-logic.js';
import { compileObjectKeywords } from './keywords-object.js';
import { compileNumberKeywords, compileStringKeywords } from './keywords-scalar.js';
import { ANY_KIND, typeMask } from './kinds.js';
import { Node } from './node.js';
import type { Dialect } from './references.js';

export interface CompileInput {
  readonly positions: readonly Position[];
  /** Pointer of each schema holding a `$ref` → pointer of its target. */
  readonly targets: ReadonlyMap<string, string>;
  readonly dialect: Dialect;
  /** Compiles a pattern once per source, or throws the admission's refusal for `pointer`. */
  readonly pattern: (source: string, pointer: string) => LinearPattern;
}

/** The root node of the compiled schema. */
export function compileSchema(input: CompileInput): Node {
  const nodes = new Map<string, Node>();
  for (const { pointer } of input.positions) nodes.set(pointer, new Node(pointer));
  const at = (pointer: string | undefined): Node => {
    const node = pointer === undefined ? undefined : nodes.get(pointer);
    // Positions and keyword compilers read the same keywords the same way; a miss is a bug.
    if (node === undefined) throw new Error(`internal: no compiled subschema at ${String(pointer)}`);
    return node;
  };
  const cx: CompileContext = {
    legacy: input.dialect.legacy,
    node: at,
    target: (pointer) => at(input.targets.get(pointer)),
    pattern: input.pattern,
  };
  for (const { pointer, value } of input.positions) compileNode(at(pointer), value, cx);
  return at('');
}

function compileNode(node: Node, schema: unknown, cx: CompileContext): void {
  if (typeof schema === 'boolean') {
    node.verdict = schema;
    return;
  }
  // Not a schema at all (a number where a subschema belongs): it constrains nothing.
  if (!isSchemaObject(schema)) {
    node.verdict = true;
    return;
  }
  const list = new CheckList();
  if (cx.legacy && typeof schema['$ref'] === 'string') {
    // draft-07 and older: "All other properties in a $ref object MUST be ignored."
    compileApplicators({ $ref: schema['$ref'] }, node.pointer, cx, list);
  } else {
    compileKeywords(node, schema, cx, list);
  }
  const checks = list.finish();
  if (checks !== undefined) node.checks = checks;
  // Only annotations ({}, a description, an unknown format): accepts everything, cheaply.
  else if (node.types === ANY_KIND) node.verdict = true;
}

function compileKeywords(node: Node, schema: SchemaObject, cx: CompileContext, list: CheckList): void {
  const types = typeMask(schema['type']);
  if (types !== undefined) {
    node.types = types;
    const names = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
    node.typeText = names.map((name) => (typeof name === 'string' ? name : '?')).join(' or ');
  }
  compileValueKeywords(schema, list);
  compileNumberKeywords(schema, list);
  compileStringKeywords(schema, node.pointer, cx, list);
  compileArrayKeywords(schema, node.pointer, cx, list);
  compileObjectKeywords(schema, node.pointer, cx, list);
  compileApplicators(schema, node.pointer, cx, list);
  node.collects = 'unevaluatedProperties' in schema || 'unevaluatedItems' in schema;
}
