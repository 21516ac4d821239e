/**
 * The shipped presets, compiled into ordinary deny and ask rules (spec/mcp.md's table). A
 * preset is not a bypass channel and not a layer of its own: its rules are appended after
 * the host's own rules, so an explicit host rule is the one an audit names when both match,
 * and "allow" in the table simply means no rule is emitted.
 *
 * Declared risk   strict   standard   open
 * read            allow    allow      allow
 * write           ask      allow      allow
 * network         ask      ask        allow
 * execute         ask      ask        allow
 * destructive     deny     ask        allow
 * (undeclared)    ask      ask        allow
 */
import { ConfigError } from '../errors.js';
import type { PermissionPreset, PermissionRule, RiskClass, Verdict } from './types.js';

export const PERMISSION_PRESETS: readonly PermissionPreset[] = Object.freeze(['strict', 'standard', 'open']);

type Row = Readonly<Record<PermissionPreset, Verdict>>;

/** The table above, row by row, in the order the compiled rules appear. */
const TABLE: ReadonlyArray<readonly [RiskClass, Row]> = [
  ['read', { strict: 'allow', standard: 'allow', open: 'allow' }],
  ['write', { strict: 'ask', standard: 'allow', open: 'allow' }],
  ['network', { strict: 'ask', standard: 'ask', open: 'allow' }],
  ['execute', { strict: 'ask', standard: 'ask', open: 'allow' }],
  ['destructive', { strict: 'deny', standard: 'ask', open: 'allow' }],
  ['undeclared', { strict: 'ask', standard: 'ask', open: 'allow' }],
];

export interface Compiled {
  readonly deny: readonly PermissionRule[];
  readonly ask: readonly PermissionRule[];
}

/**
 * Which preset a compiled rule came from, keyed by the rule object itself. The compiled
 * rules are frozen singletons, so identity is a reliable tag that needs no extra field on
 * PermissionRule (and a host that splices compiled rules into its own lists keeps the tag).
 */
const ORIGIN = new WeakMap<PermissionRule, PermissionPreset>();

function compile(preset: PermissionPreset): Compiled {
  const deny: PermissionRule[] = [];
  const ask: PermissionRule[] = [];
  for (const [risk, row] of TABLE) {
    const verdict = row[preset];
    if (verdict === 'allow') continue;
    const what = risk === 'undeclared' ? 'tools without a declared risk' : `${risk} tools`;
    const rule: PermissionRule = Object.freeze({
      risk,
      description: `preset '${preset}' ${verdict === 'deny' ? 'denies' : 'asks approval for'} ${what}`,
    });
    ORIGIN.set(rule, preset);
    (verdict === 'deny' ? deny : ask).push(rule);
  }
  return Object.freeze({ deny: Object.freeze(deny), ask: Object.freeze(ask) });
}

const COMPILED: Readonly<Record<PermissionPreset, Compiled>> = {
  strict: compile('strict'),
  standard: compile('standard'),
  open: compile('open'),
};

/** The preset as rules: fresh arrays (the caller may push onto them) of shared frozen rules. */
export function compilePermissionPreset(preset: PermissionPreset): {
  deny: PermissionRule[];
  ask: PermissionRule[];
} {
  const compiled = compiledPreset(preset);
  return { deny: [...compiled.deny], ask: [...compiled.ask] };
}

/** The preset's own frozen lists, shared: for merging, which only reads them. */
export function compiledPreset(preset: PermissionPreset): Compiled {
  if (!isPermissionPreset(preset)) {
    const got: unknown = preset;
    throw new ConfigError(
      'config.invalid_value',
      `permission preset must be one of ${PERMISSION_PRESETS.join(', ')} ` +
        `(got ${typeof got === 'string' ? JSON.stringify(got.slice(0, 40)) : typeof got})`,
    );
  }
  return COMPILED[preset];
}

export function isPermissionPreset(value: unknown): value is PermissionPreset {
  return typeof value === 'string' && (PERMISSION_PRESETS as readonly string[]).includes(value);
}

/** The preset a rule was compiled from, or undefined for a host-written rule. */
export function presetOfRule(rule: PermissionRule): PermissionPreset | undefined {
  return ORIGIN.get(rule);
}
