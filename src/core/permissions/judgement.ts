/**
 * The verdicts that need no callback: the deny and ask rules, the terminal default, and the
 * audit every verdict carries (with the advisory domain matches). Plain functions, so the
 * chain reaches a verdict without closures when nothing has to be awaited.
 */
import { quoteName } from '../tools/names.js';
import { scanDomains } from './domains.js';
import type { MergedPermissionConfig } from './merge.js';
import { presetOfRule } from './presets.js';
import { describeRule, findMatchingRule } from './rules.js';
import type { DomainRule, PermissionAudit, PermissionLayer, PermissionRule, ToolCallInfo, Verdict } from './types.js';

/** A shared empty advisory list: most audits have one, and a frozen array can be shared. */
const NO_ADVISORY: readonly DomainRule[] = Object.freeze([]);

/** The audit of one evaluation and the input the tool runs with, apart. */
export interface Judgement {
  readonly audit: PermissionAudit;
  readonly input: unknown;
}

/** The deny rules, then the ask rules; undefined when none matches. */
export function byRules(policy: MergedPermissionConfig, call: ToolCallInfo, input: unknown): Judgement | undefined {
  const denyRule = findMatchingRule(policy.deny, call);
  if (denyRule !== undefined) {
    const reason = `tool ${quoteName(call.toolName)} is denied by policy (${describeRule(denyRule)})`;
    return finish(policy, call, input, 'deny', 'deny-rule', reason, denyRule);
  }
  const askRule = findMatchingRule(policy.ask, call);
  if (askRule !== undefined) {
    const reason = `tool ${quoteName(call.toolName)} needs approval (${describeRule(askRule)})`;
    return finish(policy, call, input, 'ask', 'ask-rule', reason, askRule);
  }
  return undefined;
}

/**
 * The audit of a call the terminal default allows with no domain rule to scan, by tool name.
 * It is the same for every call of the tool, and most calls end there, so it is made once and
 * shared, frozen: a call then builds no reason text and no audit, and a journal holds one
 * audit for all of a tool's calls. At most MAX_SHARED names; past that it starts over.
 */
const DEFAULT_ALLOWS = new Map<string, PermissionAudit>();
const SHARED = new Set<PermissionAudit>();
const MAX_SHARED = 1_024;

/** Whether `audit` is one of the shared default-allow audits: frozen JSON, safe to keep by reference. */
export function isSharedAudit(audit: PermissionAudit): boolean {
  return SHARED.has(audit);
}

/** The terminal default: allow, or ask for a tool marked as needing approval. */
export function byDefault(policy: MergedPermissionConfig, call: ToolCallInfo, input: unknown): Judgement {
  if (!call.needsApproval && policy.domains.length === 0) return { audit: defaultAllow(call.toolName), input };
  const tool = quoteName(call.toolName);
  return call.needsApproval
    ? finish(policy, call, input, 'ask', 'default', `tool ${tool} is marked as needing approval`)
    : finish(policy, call, input, 'allow', 'default', `no permission layer objected to tool ${tool}`);
}

function defaultAllow(toolName: string): PermissionAudit {
  const known = DEFAULT_ALLOWS.get(toolName);
  if (known !== undefined) return known;
  if (DEFAULT_ALLOWS.size >= MAX_SHARED) {
    DEFAULT_ALLOWS.clear();
    SHARED.clear();
  }
  const reason = `no permission layer objected to tool ${quoteName(toolName)}`;
  const audit: PermissionAudit = Object.freeze({ verdict: 'allow', layer: 'default', advisory: NO_ADVISORY, reason });
  DEFAULT_ALLOWS.set(toolName, audit);
  SHARED.add(audit);
  return audit;
}

export function finish(
  policy: MergedPermissionConfig,
  call: ToolCallInfo,
  input: unknown,
  verdict: Verdict,
  layer: PermissionLayer,
  reason: string,
  rule?: PermissionRule,
): Judgement {
  const scan = scanDomains(policy.domains, call.toolName, input);
  const preset = rule === undefined ? undefined : presetOfRule(rule);
  const audit: PermissionAudit = {
    verdict,
    layer,
    ...(rule === undefined ? {} : { rule }),
    ...(preset === undefined ? {} : { preset }),
    advisory: scan.matched.length === 0 ? NO_ADVISORY : Object.freeze([...scan.matched]),
    ...(scan.complete ? {} : { advisoryIncomplete: true as const }),
    reason,
  };
  return { audit, input };
}
