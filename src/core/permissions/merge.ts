/**
 * Merging permission configs, most general first: `mergePermissionConfigs(engine, profile)`,
 * or any longer list (engine defaults, profile, per-spawn options). The result is one
 * ordinary PermissionConfig that evaluates exactly like the list would.
 *
 * - hooks: concatenated in list order, so engine hooks run before profile hooks.
 * - deny, ask: every config's own rules in list order, then every config's compiled preset
 *   in list order. Host-written rules come first so the audit names the host's explicit
 *   rule when both match; order never changes a verdict, because all deny rules are tried
 *   before any ask rule and rules never allow.
 * - presets accumulate: each config's preset compiles into rules and all of them apply. A
 *   later config can tighten an earlier preset but never loosen it (a profile saying
 *   `open` under an engine saying `strict` still has destructive tools denied): presets are
 *   not a bypass channel, and replacing rather than accumulating would make one. The merged
 *   config therefore carries no `preset`; its rules already say everything.
 * - domains: concatenated.
 * - canUseTool: the last config that sets one replaces the earlier ones (spec/runtime.md:
 *   a profile's canUseTool replaces the engine's). It is an interactive decision point,
 *   and two of them would ask the same question twice.
 * - approvalDeadlineMs, approvalTimeoutDecision: the last config that sets one wins; the
 *   more specific scope knows its approvers' timing.
 */
import { compilePermissionPreset, compiledPreset, isPermissionPreset } from './presets.js';
import type { CanUseTool, DomainRule, PermissionConfig, PermissionHook, PermissionPreset, PermissionRule } from './types.js';
import { validatePermissionConfig } from './validate.js';

/** A merged config always carries every list (possibly empty), so readers need no fallback. */
export interface MergedPermissionConfig extends PermissionConfig {
  readonly hooks: readonly PermissionHook[];
  readonly deny: readonly PermissionRule[];
  readonly ask: readonly PermissionRule[];
  readonly domains: readonly DomainRule[];
}

/** Engine first. `undefined` entries are skipped, so optional scopes can be passed as-is. */
export function mergePermissionConfigs(
  ...configs: ReadonlyArray<PermissionConfig | undefined>
): MergedPermissionConfig {
  return mergeConfigList(configs);
}

/** mergePermissionConfigs over a list the caller already holds (the chain, on every call). */
export function mergeConfigList(configs: ReadonlyArray<PermissionConfig | undefined>): MergedPermissionConfig {
  // dispatchTool without permissions merges nothing on every call: one frozen answer for it.
  if (!configs.some(isDefined)) return NOTHING_MERGED;
  // One config (a call's own, or a profile's alone) is the usual case, on every call.
  if (configs.length === 1 && configs[0] !== undefined) return mergeConfig(configs[0]);
  const hooks: PermissionHook[] = [];
  const deny: PermissionRule[] = [];
  const ask: PermissionRule[] = [];
  const presetDeny: PermissionRule[] = [];
  const presetAsk: PermissionRule[] = [];
  const domains: DomainRule[] = [];
  let canUseTool: CanUseTool | undefined;
  let approvalDeadlineMs: number | undefined;
  let approvalTimeoutDecision: 'deny' | 'allow' | undefined;

  configs.forEach((config, index) => {
    if (config === undefined) return;
    validatePermissionConfig(config, configs.length === 1 ? 'permissions' : `permissions[${index}]`);
    hooks.push(...(config.hooks ?? []));
    deny.push(...(config.deny ?? []));
    ask.push(...(config.ask ?? []));
    domains.push(...(config.domains ?? []));
    if (config.preset !== undefined) {
      const compiled = compilePermissionPreset(config.preset);
      presetDeny.push(...compiled.deny);
      presetAsk.push(...compiled.ask);
    }
    canUseTool = config.canUseTool ?? canUseTool;
    approvalDeadlineMs = config.approvalDeadlineMs ?? approvalDeadlineMs;
    approvalTimeoutDecision = config.approvalTimeoutDecision ?? approvalTimeoutDecision;
  });

  return Object.freeze({
    hooks: Object.freeze(hooks),
    deny: Object.freeze([...deny, ...unique(presetDeny)]),
    ask: Object.freeze([...ask, ...unique(presetAsk)]),
    domains: Object.freeze(domains),
    ...(canUseTool === undefined ? {} : { canUseTool }),
    ...(approvalDeadlineMs === undefined ? {} : { approvalDeadlineMs }),
    ...(approvalTimeoutDecision === undefined ? {} : { approvalTimeoutDecision }),
  });
}

/**
 * The same as the general merge of a one-config list, without its intermediate arrays: the
 * preset's frozen lists are used as they are when the config adds no rules of its own.
 */
export function mergeConfig(config: PermissionConfig): MergedPermissionConfig {
  validatePermissionConfig(config, 'permissions');
  const { preset, hooks, deny, ask, domains, canUseTool, approvalDeadlineMs, approvalTimeoutDecision } = config;
  // A bare preset (`{ preset: 'standard' }`, what most calls carry) merges to the same
  // frozen config every time: made once, not on every call. (Checked again here: a getter
  // need not answer as it did to validation, and compiledPreset refuses what it answers now.)
  const bare = hooks === undefined && deny === undefined && ask === undefined && domains === undefined && canUseTool === undefined;
  if (bare && approvalDeadlineMs === undefined && approvalTimeoutDecision === undefined && isPermissionPreset(preset)) return PRESET_ONLY[preset];
  const compiled = preset === undefined ? undefined : compiledPreset(preset);
  return Object.freeze({
    hooks: frozenList(hooks, undefined),
    deny: frozenList(deny, compiled?.deny),
    ask: frozenList(ask, compiled?.ask),
    domains: frozenList(domains, undefined),
    ...(canUseTool === undefined ? {} : { canUseTool }),
    ...(approvalDeadlineMs === undefined ? {} : { approvalDeadlineMs }),
    ...(approvalTimeoutDecision === undefined ? {} : { approvalTimeoutDecision }),
  });
}

/** `own` then `fromPreset`, frozen; a copy only when the config has entries of its own. */
function frozenList<T>(own: readonly T[] | undefined, fromPreset: readonly T[] | undefined): readonly T[] {
  if (own === undefined || own.length === 0) return fromPreset ?? NO_ENTRIES;
  return Object.freeze(fromPreset === undefined ? [...own] : [...own, ...fromPreset]);
}

const NO_ENTRIES: readonly never[] = Object.freeze([]);

function isDefined(config: PermissionConfig | undefined): boolean {
  return config !== undefined;
}

const NOTHING_MERGED: MergedPermissionConfig = Object.freeze({
  hooks: Object.freeze([]),
  deny: Object.freeze([]),
  ask: Object.freeze([]),
  domains: Object.freeze([]),
});

/** What a config holding only a preset merges to, one per preset: as mergeConfig builds it, once. */
const PRESET_ONLY: Readonly<Record<PermissionPreset, MergedPermissionConfig>> = Object.freeze({
  strict: presetOnly('strict'),
  standard: presetOnly('standard'),
  open: presetOnly('open'),
});

function presetOnly(preset: PermissionPreset): MergedPermissionConfig {
  const compiled = compiledPreset(preset);
  return Object.freeze({ hooks: NO_ENTRIES, deny: compiled.deny, ask: compiled.ask, domains: NO_ENTRIES });
}

/**
 * The same preset twice (engine and profile both `strict`) yields the same frozen rule
 * objects; listing them once keeps audits and merged configs tidy.
 */
function unique(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.length === 0 ? [] : [...new Set(rules)];
}
