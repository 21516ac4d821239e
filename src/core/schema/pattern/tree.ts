/**
 * The parsed pattern. Every node is built knowing how many program instructions it will
 * expand to (program.ts emits exactly that many), so a pattern whose counted repetition
 * multiplies past MAX_PATTERN_STATES is refused here, from the numbers, before any
 * instruction exists. The tree itself stays proportional to the pattern's length: `a{1000}`
 * is one node, however many copies the program will hold.
 */
import { MAX_PATTERN_STATES } from '../limits.js';

export class PatternUnsupportedError extends Error {
  override readonly name = 'PatternUnsupportedError';
}

export type Assertion = 'begin' | 'end' | 'boundary' | 'non-boundary';

interface Cost {
  /** Instructions the node expands to. */
  readonly size: number;
  /** Every way through the node starts with `^`, so a match can only start at index 0. */
  readonly anchored: boolean;
}

/** A node that consumes exactly one character; repeating one needs no jump instructions. */
export type Step = Cost &
  (
    | { readonly kind: 'char'; readonly codePoint: number }
    | { readonly kind: 'any' }
    /** Checked by native RegExp on its exact source text, one character at a time. */
    | { readonly kind: 'class'; readonly text: string }
  );

export type Node =
  | Step
  | (Cost &
      (
        | { readonly kind: 'empty' }
        | { readonly kind: 'assert'; readonly assertion: Assertion }
        | { readonly kind: 'sequence'; readonly items: readonly Node[] }
        | { readonly kind: 'choice'; readonly options: readonly Node[] }
        | { readonly kind: 'repeat'; readonly body: Node; readonly min: number; readonly max: number }
      ));

const EMPTY: Node = { kind: 'empty', size: 0, anchored: false };
export const ANY: Node = { kind: 'any', size: 1, anchored: false };

export function char(codePoint: number): Node {
  return { kind: 'char', codePoint, size: 1, anchored: false };
}

export function charClass(text: string): Node {
  return { kind: 'class', text, size: 1, anchored: false };
}

export function assertion(which: Assertion): Node {
  return { kind: 'assert', assertion: which, size: 1, anchored: which === 'begin' };
}

export function isStep(node: Node): node is Step {
  return node.kind === 'char' || node.kind === 'any' || node.kind === 'class';
}

/** Refuses once `size` instructions would be too many; every tally in the tree comes here. */
export function admitSize(size: number): number {
  if (size > MAX_PATTERN_STATES) {
    throw new PatternUnsupportedError(
      `needs more than ${MAX_PATTERN_STATES} matcher states once its counted repetition is expanded`,
    );
  }
  return size;
}

/** `items` must hold no empty nodes (the reader drops them: they emit nothing). */
export function sequence(items: readonly Node[]): Node {
  const [first] = items;
  if (first === undefined) return EMPTY;
  if (items.length === 1) return first;
  let size = 0;
  for (const item of items) size += item.size;
  return { kind: 'sequence', items, size: admitSize(size), anchored: first.anchored };
}

export function choice(options: readonly Node[]): Node {
  const [first] = options;
  if (first === undefined) return EMPTY;
  if (options.length === 1) return first;
  // Each option but the last costs a fork in front and a jump past the rest.
  let size = 2 * (options.length - 1);
  for (const option of options) size += option.size;
  return { kind: 'choice', options, size: admitSize(size), anchored: options.every((o) => o.anchored) };
}

/**
 * `body{min,max}`, max Infinity when unbounded. Counts arrive already capped by the reader
 * (a count above MAX_PATTERN_STATES is refused either way, so its exact value is moot).
 */
export function repeat(body: Node, min: number, max: number): Node {
  // A body with no instructions matches only the empty string, as any number of it does.
  if (body.size === 0 || max === 0) return EMPTY;
  if (min === 1 && max === 1) return body;
  const size = admitSize(repeatSize(body, min, max));
  return { kind: 'repeat', body, min, max, size, anchored: min > 0 && body.anchored };
}

/** Must agree instruction for instruction with program.ts's repeatStep and repeatGroup. */
function repeatSize(body: Node, min: number, max: number): number {
  if (isStep(body)) return max === Infinity ? Math.max(min, 1) : max;
  const s = body.size;
  if (max === Infinity) return min === 0 ? s + 2 : min * s + 1;
  return min * s + (max - min) * (s + 1);
}
