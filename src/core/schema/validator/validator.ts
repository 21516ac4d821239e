/**
 * A compiled schema's `validate`: the pre-pass, then a verdict pass, then (only for an
 * invalid value) an explaining pass. The two passes are the same interpreter; the first
 * short-circuits and builds nothing, so a valid value, the common case, costs one walk and
 * no strings. Each pass has its own allowance of `workLimitFor(size)` units: explaining
 * keeps going past failures, and must not be starved by what the verdict already spent.
 *
 * Whatever happens inside, the outcome is a value: past the allowance (or nested past
 * MAX_EVALUATION_DEPTH) it is "invalid" with one `budget` issue, never an exception and
 * never a hang.
 */
import { isWorkExceeded, workLimitFor } from '../budget.js';
import type { CompiledSchema, ValidationIssue, ValidationOutcome } from '../validate.js';
import { evaluate, type Node } from './node.js';
import { measureInstance } from './prepass.js';
import { ENOUGH_ISSUES, MAX_EVALUATION_DEPTH, Run, TOO_DEEP } from './run.js';

type Pass =
  | { readonly kind: 'done'; readonly valid: boolean; readonly work: number; readonly issues: readonly ValidationIssue[] }
  | { readonly kind: 'stopped'; readonly issue: ValidationIssue; readonly issues: readonly ValidationIssue[] };

export function compiledValidator(root: Node): CompiledSchema {
  return {
    validate(value: unknown): ValidationOutcome {
      let measured: ReturnType<typeof measureInstance>;
      try {
        measured = measureInstance(value);
      } catch {
        // Only a host's own value can throw here (a getter, a Proxy): it is not JSON.
        return { valid: false, issues: [{ path: '', keyword: 'json', message: 'the value could not be read as JSON' }], work: 0 };
      }
      if (!measured.ok) return { valid: false, issues: [measured.issue], work: 0 };
      const limit = workLimitFor(measured.size);
      const verdict = pass(root, value, limit, false);
      if (verdict.kind === 'stopped') return { valid: false, issues: [verdict.issue], work: limit };
      if (verdict.valid) return { valid: true, work: verdict.work };
      const explained = pass(root, value, limit, true);
      // The explaining pass may be stopped too (it does more work); what it found stands.
      const issues = explained.issues.length > 0 ? explained.issues : [explained.kind === 'stopped' ? explained.issue : UNEXPLAINED];
      return { valid: false, issues, work: verdict.work };
    },
  };
}

const UNEXPLAINED: ValidationIssue = { path: '', keyword: 'schema', message: 'does not match the schema' };

function pass(root: Node, value: unknown, limit: number, explaining: boolean): Pass {
  const run = new Run(limit, explaining);
  try {
    const valid = evaluate(root, value, null, run, undefined);
    return { kind: 'done', valid, work: run.meter.spent, issues: run.issues };
  } catch (thrown) {
    if (thrown === ENOUGH_ISSUES) return { kind: 'done', valid: false, work: run.meter.spent, issues: run.issues };
    return { kind: 'stopped', issue: { path: '', keyword: 'budget', message: stoppedBecause(thrown, limit) }, issues: run.issues };
  }
}

function stoppedBecause(thrown: unknown, limit: number): string {
  if (isWorkExceeded(thrown)) return `validation was too costly and was stopped: it used up its allowance of ${limit} work units`;
  if (thrown === TOO_DEEP) return `validation was too costly and was stopped: subschemas nested more than ${MAX_EVALUATION_DEPTH} levels deep`;
  // A stack overflow below MAX_EVALUATION_DEPTH (a runtime with a tiny stack), or a bug:
  // either way the value was not shown valid, and the host must not see an exception.
  return 'validation was too costly and was stopped: the validator could not finish';
}
