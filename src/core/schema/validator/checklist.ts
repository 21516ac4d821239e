/**
 * What the keyword compilers (keywords-*.ts) share: the context they compile in and the
 * buckets they file checks into. The buckets fix the order checks run in, cheapest and most
 * decisive first (enum, const, then the value's own constraints, then subschemas applied in
 * place), with unevaluated* last because they read what everything before them evaluated.
 */
import type { LinearPattern } from '../pattern/index.js';
import { escapePointer } from '../walk.js';
import { ARRAY, BOOLEAN, INTEGER, KIND_COUNT, NULL, NUMBER, OBJECT, STRING } from './kinds.js';
import type { Check, Node } from './node.js';

export interface CompileContext {
  /** draft-04/06/07 rules: $ref siblings ignored (the root's $schema names an old draft). */
  readonly legacy: boolean;
  /** The compiled node at a subschema position (every position has one). */
  node(pointer: string): Node;
  /** The node a `$ref` at this schema position resolves to (resolved at admission). */
  target(pointer: string): Node;
  /** A `pattern` or `patternProperties` key, compiled once; refuses it at `pointer`. */
  pattern(source: string, pointer: string): LinearPattern;
}

export class CheckList {
  readonly first: Check[] = [];
  readonly numbers: Check[] = [];
  readonly strings: Check[] = [];
  readonly arrays: Check[] = [];
  readonly objects: Check[] = [];
  readonly inPlace: Check[] = [];
  readonly lateArrays: Check[] = [];
  readonly lateObjects: Check[] = [];

  /** The per-kind lists, indexed like kinds.ts; undefined when no kind has a check. */
  finish(): (readonly Check[])[] | undefined {
    const scalar = joined(this.first, this.inPlace);
    const numbers = joined(this.first, this.numbers, this.inPlace);
    const strings = joined(this.first, this.strings, this.inPlace);
    const arrays = joined(this.first, this.arrays, this.inPlace, this.lateArrays);
    const objects = joined(this.first, this.objects, this.inPlace, this.lateObjects);
    if (scalar === NONE && numbers === NONE && strings === NONE && arrays === NONE && objects === NONE) return undefined;
    const byKind: (readonly Check[])[] = new Array<readonly Check[]>(KIND_COUNT).fill(scalar);
    byKind[NULL] = scalar;
    byKind[BOOLEAN] = scalar;
    byKind[INTEGER] = numbers;
    byKind[NUMBER] = numbers;
    byKind[STRING] = strings;
    byKind[ARRAY] = arrays;
    byKind[OBJECT] = objects;
    return byKind;
  }
}

const NONE: readonly Check[] = [];

/** The buckets in order as one list, copying only when more than one holds checks. */
function joined(...buckets: readonly (readonly Check[])[]): readonly Check[] {
  const filled = buckets.filter((bucket) => bucket.length > 0);
  if (filled.length === 0) return NONE;
  return filled.length === 1 ? (filled[0] as readonly Check[]) : filled.flat();
}

/** A subschema position's pointer: `parent/keyword[/name-or-index]`. */
export function childPointer(parent: string, ...tokens: (string | number)[]): string {
  let pointer = parent;
  for (const token of tokens) pointer += `/${typeof token === 'number' ? token : escapePointer(token)}`;
  return pointer;
}
