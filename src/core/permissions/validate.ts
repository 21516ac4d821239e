/**
 * Validation of a PermissionConfig written in plain JS (or loaded from a file). A malformed
 * policy is a configuration problem, so it is a ConfigError naming the key at fault, raised
 * before any call is judged. The alternative, quietly ignoring a rule the host got wrong,
 * would turn a typo in a deny rule into an allow.
 */
import { ConfigError } from '../errors.js';
import { TOOL_RISKS } from '../tools/types.js';
import { parseDomainPattern } from './domains.js';
import { isPermissionPreset, PERMISSION_PRESETS } from './presets.js';
import type { PermissionConfig } from './types.js';
import { isRecord } from '../records.js';

const CONFIG_KEYS = new Set([
  'preset',
  'hooks',
  'deny',
  'ask',
  'canUseTool',
  'domains',
  'approvalDeadlineMs',
  'approvalTimeoutDecision',
]);
const RULE_KEYS = new Set(['tool', 'risk', 'description']);
const DOMAIN_RULE_KEYS = new Set(['tool', 'domains']);
const RISK_CLASSES: readonly string[] = [...TOOL_RISKS, 'undeclared'];

/** Ten years: any longer is no deadline, and past year 275760 a Date cannot even hold it. */
const MAX_APPROVAL_DEADLINE_MS = 10 * 365 * 24 * 60 * 60 * 1000;

/** A short rendering of a config value for a message (policy values are not secrets). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

function invalid(path: string, expected: string, value: unknown): never {
  throw new ConfigError('config.invalid_value', `'${path}' must be ${expected} (got ${describeValue(value)})`);
}

function checkKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>, path: string): void {
  for (const key of Object.keys(record)) {
    if (!allowed.has(key)) {
      throw new ConfigError('config.unknown_key', `unknown key '${path}.${key}' (known: ${[...allowed].join(', ')})`);
    }
  }
}

function checkArray(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) invalid(path, 'an array', value);
  return value;
}

function checkNames(value: unknown, path: string): void {
  if (typeof value === 'string' && value !== '') return;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '')) return;
  invalid(path, 'a tool name or an array of tool names', value);
}

function checkRule(value: unknown, path: string): void {
  if (!isRecord(value)) invalid(path, 'an object naming tool or risk', value);
  checkKeys(value, RULE_KEYS, path);
  const hasTool = value['tool'] !== undefined;
  const hasRisk = value['risk'] !== undefined;
  if (hasTool === hasRisk) invalid(path, 'a rule naming exactly one of tool or risk', value);
  if (hasTool) checkNames(value['tool'], `${path}.tool`);
  if (hasRisk) {
    const risk = value['risk'];
    const ok = (v: unknown): boolean => typeof v === 'string' && RISK_CLASSES.includes(v);
    if (!(ok(risk) || (Array.isArray(risk) && risk.every(ok)))) {
      invalid(`${path}.risk`, `one of ${RISK_CLASSES.join(', ')} or an array of them`, risk);
    }
  }
  if (value['description'] !== undefined && typeof value['description'] !== 'string') {
    invalid(`${path}.description`, 'a string', value['description']);
  }
}

function checkDomainRule(value: unknown, path: string): void {
  if (!isRecord(value)) invalid(path, 'an object with tool and domains', value);
  checkKeys(value, DOMAIN_RULE_KEYS, path);
  checkNames(value['tool'], `${path}.tool`);
  checkArray(value['domains'], `${path}.domains`).forEach((domain, i) => {
    if (typeof domain !== 'string' || parseDomainPattern(domain) === undefined) {
      invalid(`${path}.domains[${i}]`, "a host such as 'example.com' or '*.example.com'", domain);
    }
  });
}

/** Throws a ConfigError naming the first problem; `label` prefixes every path it names. */
export function validatePermissionConfig(
  config: unknown,
  label = 'permissions',
): asserts config is PermissionConfig {
  if (!isRecord(config)) invalid(label, 'an object', config);
  checkKeys(config, CONFIG_KEYS, label);
  const { preset, hooks, deny, ask, canUseTool, domains, approvalDeadlineMs, approvalTimeoutDecision } = config;
  if (preset !== undefined && !isPermissionPreset(preset)) {
    invalid(`${label}.preset`, `one of ${PERMISSION_PRESETS.join(', ')}`, preset);
  }
  if (hooks !== undefined) {
    checkArray(hooks, `${label}.hooks`).forEach((hook, i) => {
      if (typeof hook !== 'function') invalid(`${label}.hooks[${i}]`, 'a function', hook);
    });
  }
  for (const [key, rules] of [['deny', deny], ['ask', ask]] as const) {
    if (rules === undefined) continue;
    checkArray(rules, `${label}.${key}`).forEach((rule, i) => checkRule(rule, `${label}.${key}[${i}]`));
  }
  if (canUseTool !== undefined && typeof canUseTool !== 'function') {
    invalid(`${label}.canUseTool`, 'a function', canUseTool);
  }
  if (domains !== undefined) {
    checkArray(domains, `${label}.domains`).forEach((rule, i) => checkDomainRule(rule, `${label}.domains[${i}]`));
  }
  if (
    approvalDeadlineMs !== undefined &&
    !(typeof approvalDeadlineMs === 'number' && approvalDeadlineMs > 0 && approvalDeadlineMs <= MAX_APPROVAL_DEADLINE_MS)
  ) {
    invalid(`${label}.approvalDeadlineMs`, 'a positive number of milliseconds, at most ten years', approvalDeadlineMs);
  }
  const decision = approvalTimeoutDecision;
  if (decision !== undefined && decision !== 'deny' && decision !== 'allow') {
    invalid(`${label}.approvalTimeoutDecision`, "'deny' or 'allow'", approvalTimeoutDecision);
  }
}
