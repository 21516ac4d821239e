/**
 * A compiled schema node and the one function that evaluates it. Compiling reads a schema
 * object once and leaves, per node, the list of keyword checks that apply to each kind of
 * value (children compiled, $ref targets linked), so validating never looks at a raw schema
 * key again: it tests the `type` mask, then runs the checks for the value's kind in order.
 *
 * Every node evaluation and every check spends one unit; checks that loop (over properties,
 * items, enum keys, characters) spend more for what they do.
 */
import { Annotations } from './annotations.js';
import { ANY_KIND, ARRAY, KIND_COUNT, kindName, kindOf } from './kinds.js';
import { MAX_EVALUATION_DEPTH, TOO_DEEP, type Path, type Run } from './run.js';

/**
 * One keyword (or a group that must run together, like properties/patternProperties/
 * additionalProperties) applied to a value of the kind it was filed under. Returns whether
 * the value passed; when it did not and the run is reporting, it has called `run.fail`.
 * `ann` collects what was evaluated, when an enclosing schema uses unevaluated*.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a check is filed under one kind, so it knows its value's type
export type Check = (value: any, at: Path | null, run: Run, ann: Annotations | undefined) => boolean;

const NO_CHECKS: readonly Check[] = [];
const NO_CHECKS_BY_KIND: readonly (readonly Check[])[] = Array.from({ length: KIND_COUNT }, () => NO_CHECKS);

export class Node {
  /** Set for a boolean schema (and a position holding a non-schema value: true). */
  verdict: boolean | undefined;
  /** The `type` mask (kinds.ts); every kind when the schema has no `type`. */
  types = ANY_KIND;
  /** `type` as a message says it: "string", "string or null". */
  typeText = '';
  /** The checks to run per kind, in order; kinds with the same list share the array. */
  checks: readonly (readonly Check[])[] = NO_CHECKS_BY_KIND;
  /** Whether this node keeps its own annotations: it has unevaluatedProperties/Items. */
  collects = false;

  constructor(readonly pointer: string) {}
}

export function evaluate(node: Node, value: unknown, at: Path | null, run: Run, ann: Annotations | undefined): boolean {
  run.meter.spend(1);
  const verdict = node.verdict;
  if (verdict !== undefined) {
    if (!verdict) run.fail(at, 'false', () => 'no value is allowed here');
    return verdict;
  }
  const kind = kindOf(value);
  let valid = true;
  if ((node.types & (1 << kind)) === 0) {
    run.fail(at, 'type', () => `must be ${node.typeText}, not ${kindName(kind)}`);
    if (!run.reporting) return false;
    valid = false;
  }
  const checks = node.checks[kind] ?? NO_CHECKS;
  if (checks.length === 0) return valid;
  if (++run.depth > MAX_EVALUATION_DEPTH) throw TOO_DEEP;
  const own = node.collects && kind >= ARRAY ? new Annotations() : ann;
  for (const check of checks) {
    run.meter.spend(1);
    if (!check(value, at, run, own)) {
      valid = false;
      if (!run.reporting) break;
    }
  }
  run.depth -= 1;
  if (valid && ann !== undefined && own !== ann && own !== undefined) ann.merge(own, run);
  return valid;
}
