/**
 * The state of one pass over one value. A validation makes at most two passes, each with its
 * own Run and its own allowance: the verdict pass (short-circuits, builds no message, no
 * path) and, only when the verdict is "invalid", the explaining pass, which keeps going past
 * failures to collect a few issues with paths and messages.
 *
 * Both passes stop the same way when they must: by throwing one of the shared symbols below
 * (no Error, so no stack is captured), caught by the validator at the top.
 */
import { WorkMeter } from '../budget.js';
import { MAX_REPORTED_ISSUES } from '../limits.js';
import type { ValidationIssue } from '../validate.js';
import { escapePointer } from '../walk.js';
import { capMessage } from './messages.js';

/**
 * How deep evaluation may nest (a node evaluating a child node, through the data or through
 * $ref/allOf/…). JavaScript stacks differ (Chromium, workerd and Node each give a different
 * number of frames), so the interpreter bounds its own recursion well below the smallest of
 * them instead of letting a RangeError decide; past it the value is "too costly".
 */
export const MAX_EVALUATION_DEPTH = 1_000;

/** Thrown when evaluation nests past MAX_EVALUATION_DEPTH. */
export const TOO_DEEP: unique symbol = Symbol('rulvar.validationTooDeep');

/** Thrown by the explaining pass once it holds MAX_REPORTED_ISSUES issues: enough to act on. */
export const ENOUGH_ISSUES: unique symbol = Symbol('rulvar.enoughIssues');

/** Where a value sits in the instance: a linked list built only while explaining. */
export interface Path {
  readonly parent: Path | null;
  readonly key: string | number;
}

export class Run {
  readonly meter: WorkMeter;
  /** Whether a failing check should say why: explaining, and not inside anyOf/oneOf/not/if. */
  reporting: boolean;
  depth = 0;
  readonly issues: ValidationIssue[] = [];
  /**
   * Canonical keys of the objects and arrays this pass has hashed (see canonical.ts). A Map,
   * not a WeakMap: it dies with the pass, and weak entries cost the collector far more.
   */
  keys: Map<object, string> | undefined;

  constructor(
    limit: number,
    readonly explaining: boolean,
  ) {
    this.meter = new WorkMeter(limit);
    this.reporting = explaining;
  }

  /** The path of a child value, or null when nothing will ever be reported from it. */
  child(at: Path | null, key: string | number): Path | null {
    return this.reporting ? { parent: at, key } : null;
  }

  /** Records an issue if this pass reports here. `message` is called only then. */
  fail(at: Path | null, keyword: string, message: () => string): void {
    if (!this.reporting) return;
    this.issues.push({ path: pointerOf(at), keyword, message: capMessage(message()) });
    if (this.issues.length >= MAX_REPORTED_ISSUES) throw ENOUGH_ISSUES;
  }
}

/** The longest key a pointer in a message spells out. */
const MAX_TOKEN = 40;

/**
 * The JSON pointer of a path ('' for the value itself). A key is data from across the trust
 * boundary: one longer than MAX_TOKEN is cut (and marked) so a megabyte key cannot become a
 * megabyte error message.
 */
export function pointerOf(at: Path | null): string {
  const tokens: string[] = [];
  for (let p = at; p !== null; p = p.parent) {
    if (typeof p.key === 'number') tokens.push(String(p.key));
    else if (p.key.length <= MAX_TOKEN) tokens.push(escapePointer(p.key));
    else tokens.push(`${escapePointer(p.key.slice(0, MAX_TOKEN - 1))}…`);
  }
  return tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`;
}

