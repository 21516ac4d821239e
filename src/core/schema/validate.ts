/**
 * What validation gives its callers: an outcome per value, and issues a model can act on
 * (where, which keyword, what went wrong). The interpreter that produces them is the
 * project's own (validator/): eval-free, so it runs where `new Function` is refused
 * (workerd), and bounded, so no schema or value can make a validation run away.
 */
import { MAX_REPORTED_ISSUES } from './limits.js';

export interface ValidationIssue {
  /** JSON pointer into the validated value; '' is the value itself. */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

/**
 * `work` is the units the verdict pass spent (see budget.ts): deterministic for a given
 * schema and value, so tests can pin costs without timing anything. At most
 * `workLimitFor(size)`; a validation stopped for cost reports exactly that.
 */
export type ValidationOutcome =
  | { readonly valid: true; readonly work: number }
  | { readonly valid: false; readonly issues: readonly ValidationIssue[]; readonly work: number };

export interface CompiledSchema {
  validate(value: unknown): ValidationOutcome;
}

/**
 * One readable paragraph: a line per issue. Validation reports at most MAX_REPORTED_ISSUES,
 * and says so when it stopped there.
 */
export function describeIssues(what: string, issues: readonly ValidationIssue[]): string {
  const lines = issues.map((issue) => `- ${issue.path === '' ? '(root)' : issue.path}: ${issue.keyword}: ${issue.message}`);
  if (issues.length >= MAX_REPORTED_ISSUES) lines.push(`- (validation stops after ${MAX_REPORTED_ISSUES} issues; there may be more)`);
  return `${what}:\n${lines.join('\n')}`;
}
