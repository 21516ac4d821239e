/**
 * Matching deny and ask rules against a call. Rules restrict and never allow, so matching is
 * deliberately simple and literal: exact final tool names, or risk classes. No globs, no
 * regular expressions: a rule's reach is what it says.
 */
import { TOOL_RISKS, type ToolRisk } from '../tools/types.js';
import type { PermissionRule, RiskClass } from './types.js';

/** What rule matching needs to know about a call. */
export interface RuleTarget {
  readonly toolName: string;
  readonly risk?: ToolRisk;
}

const KNOWN_RISKS: ReadonlySet<string> = new Set(TOOL_RISKS);

/**
 * The class a tool falls under. A label outside ToolRisk (possible from plain JS) counts as
 * undeclared rather than matching nothing: an unknown label must not slip past every
 * risk rule, and `'undeclared'` is what every preset treats with caution.
 */
export function riskClassOf(risk: ToolRisk | undefined): RiskClass {
  return risk !== undefined && KNOWN_RISKS.has(risk) ? risk : 'undeclared';
}

/** One name or a list of names, as rules and domain rules spell them. */
export function namesInclude(pattern: string | readonly string[], name: string): boolean {
  return typeof pattern === 'string' ? pattern === name : pattern.includes(name);
}

export function ruleMatches(rule: PermissionRule, target: RuleTarget): boolean {
  if (rule.tool !== undefined) return namesInclude(rule.tool, target.toolName);
  // Otherwise a risk rule: validation admits only rules naming exactly one of the two.
  const cls = riskClassOf(target.risk);
  return typeof rule.risk === 'string' ? rule.risk === cls : rule.risk.includes(cls);
}

/** The first rule that matches, in order, so the audit names the earliest (most specific) one. */
export function findMatchingRule(
  rules: readonly PermissionRule[],
  target: RuleTarget,
): PermissionRule | undefined {
  for (const rule of rules) if (ruleMatches(rule, target)) return rule;
  return undefined;
}

/**
 * A short, secret-free description of a rule for reasons: only tool names and risk classes,
 * which are the host's own configuration, plus the host's description when it wrote one.
 */
export function describeRule(rule: PermissionRule): string {
  const list = (v: string | readonly string[]): string =>
    typeof v === 'string' ? v : v.length === 1 ? (v[0] ?? '') : `[${v.join(', ')}]`;
  const target = rule.tool !== undefined ? `tool ${list(rule.tool)}` : `risk ${list(rule.risk)}`;
  return rule.description === undefined ? target : `${target}: ${rule.description}`;
}
