/**
 * Keywords for any kind of value: const and enum (Set lookups through canonical keys), and
 * the in-place applicators ($ref, allOf, anyOf, oneOf, not, if/then/else).
 *
 * anyOf, oneOf, not and `if` evaluate their branches silently: a branch failing is how they
 * work, not what went wrong, so the explaining pass reports one issue for the combinator
 * ("matches none of the 3 alternatives") and never the branches' own errors. allOf, $ref,
 * then and else report through their subschemas, whose failures are the real constraints.
 */
import { Annotations } from './annotations.js';
import { ValueSet } from './canonical.js';
import { childPointer, type CheckList, type CompileContext } from './checklist.js';
import { describe, isShortScalar, plural } from './messages.js';
import { evaluate, type Check, type Node } from './node.js';
import type { Path, Run } from './run.js';
import type { SchemaObject } from '../walk.js';

export function compileValueKeywords(schema: SchemaObject, list: CheckList): void {
  if ('const' in schema) {
    const constant = schema['const'];
    const set = new ValueSet([constant]);
    const shown = isShortScalar(constant) ? ` ${JSON.stringify(constant)}` : '';
    list.first.push((value, at, run) => {
      if (set.has(value, run)) return true;
      run.fail(at, 'const', () => `must equal the constant${shown}, not ${describe(value)}`);
      return false;
    });
  }
  const members = schema['enum'];
  if (Array.isArray(members)) {
    const set = new ValueSet(members);
    // A handful of short scalars is worth naming; a long enum never is.
    const listed = members.length <= 5 && members.every(isShortScalar) ? `: ${members.map((m) => JSON.stringify(m)).join(', ')}` : '';
    list.first.push((value, at, run) => {
      if (set.has(value, run)) return true;
      run.fail(at, 'enum', () => `${describe(value)} is not one of the ${plural(members.length, 'allowed value', 'allowed values')}${listed}`);
      return false;
    });
  }
}

export function compileApplicators(schema: SchemaObject, pointer: string, cx: CompileContext, list: CheckList): void {
  if (typeof schema['$ref'] === 'string') {
    const target = cx.target(pointer);
    list.inPlace.push((value, at, run, ann) => evaluate(target, value, at, run, ann));
  }
  const branches = (keyword: string): Node[] | undefined => {
    const value = schema[keyword];
    return Array.isArray(value) ? value.map((_, i) => cx.node(childPointer(pointer, keyword, i))) : undefined;
  };
  const allOf = branches('allOf');
  if (allOf !== undefined) list.inPlace.push(allOfCheck(allOf));
  const anyOf = branches('anyOf');
  if (anyOf !== undefined) list.inPlace.push(anyOfCheck(anyOf));
  const oneOf = branches('oneOf');
  if (oneOf !== undefined) list.inPlace.push(oneOfCheck(oneOf));
  if ('not' in schema) {
    const negated = cx.node(childPointer(pointer, 'not'));
    list.inPlace.push((value, at, run) => {
      const reporting = run.reporting;
      run.reporting = false;
      const matched = evaluate(negated, value, at, run, undefined);
      run.reporting = reporting;
      if (!matched) return true;
      run.fail(at, 'not', () => 'must not match the schema under "not"');
      return false;
    });
  }
  if ('if' in schema) {
    const node = (keyword: string) => (keyword in schema ? cx.node(childPointer(pointer, keyword)) : undefined);
    list.inPlace.push(conditionCheck(node('if') as Node, node('then'), node('else')));
  }
}

function allOfCheck(nodes: readonly Node[]): Check {
  return (value, at, run, ann) => {
    let valid = true;
    for (const node of nodes) {
      if (!evaluate(node, value, at, run, ann)) {
        valid = false;
        if (!run.reporting) return false;
      }
    }
    return valid;
  };
}

/** Runs one branch with a fresh collector when annotations are wanted; merges only a pass. */
function branch(node: Node, value: unknown, at: Path | null, run: Run, ann: Annotations | undefined): boolean {
  if (ann === undefined) return evaluate(node, value, at, run, undefined);
  const own = new Annotations();
  const valid = evaluate(node, value, at, run, own);
  if (valid) ann.merge(own, run);
  return valid;
}

function anyOfCheck(nodes: readonly Node[]): Check {
  return (value, at, run, ann) => {
    const reporting = run.reporting;
    run.reporting = false;
    let matched = false;
    for (const node of nodes) {
      if (branch(node, value, at, run, ann)) matched = true;
      // Annotations need every passing branch; a bare verdict needs only the first.
      if (matched && ann === undefined) break;
    }
    run.reporting = reporting;
    if (matched) return true;
    run.fail(at, 'anyOf', () => `matches none of the ${plural(nodes.length, 'alternative', 'alternatives')}`);
    return false;
  };
}

function oneOfCheck(nodes: readonly Node[]): Check {
  return (value, at, run, ann) => {
    const reporting = run.reporting;
    run.reporting = false;
    const matches: number[] = [];
    let kept: Annotations | undefined;
    // Two matches already decide: no need to count further.
    for (let i = 0; i < nodes.length && matches.length < 2; i += 1) {
      const own = ann === undefined ? undefined : new Annotations();
      if (evaluate(nodes[i] as Node, value, at, run, own)) {
        matches.push(i);
        kept = own;
      }
    }
    run.reporting = reporting;
    if (matches.length === 1) {
      if (ann !== undefined && kept !== undefined) ann.merge(kept, run);
      return true;
    }
    run.fail(at, 'oneOf', () =>
      matches.length === 0
        ? `matches none of the ${plural(nodes.length, 'alternative', 'alternatives')} (exactly one must match)`
        : `matches at least 2 of the ${nodes.length} alternatives (${matches[0]} and ${matches[1]}), exactly one allowed`,
    );
    return false;
  };
}

function conditionCheck(condition: Node, then: Node | undefined, otherwise: Node | undefined): Check {
  return (value, at, run, ann) => {
    // Without then/else the condition only matters for the annotations it adds.
    if (then === undefined && otherwise === undefined && ann === undefined) return true;
    const reporting = run.reporting;
    run.reporting = false;
    const holds = branch(condition, value, at, run, ann);
    run.reporting = reporting;
    const next = holds ? then : otherwise;
    return next === undefined || evaluate(next, value, at, run, ann);
  };
}
