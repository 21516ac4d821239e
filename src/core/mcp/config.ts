/**
 * Checks an `mcp()` config at construction: exactly the keys of the chosen transport,
 * required keys present, every value of the right type. Everything is refused here, with a
 * `ConfigError` naming the key, so nothing surprises the host at first call.
 */
import { ConfigError } from '../errors.js';
import { TOOL_RISKS, type ToolRisk } from '../tools/types.js';
import { BOUND_CHECKS, assertRequiredBounds } from './bounds.js';
import type { McpConfig, McpTransportName } from './config-types.js';
import { REQUIRED_PROVIDER_METHODS } from './oauth.js';
import { PROTOCOL_OPTIONS, type ProtocolOption } from './modern/revision.js';

type Check = (value: unknown) => string | undefined;

const isString: Check = (v) => (typeof v === 'string' ? undefined : 'a string');
const isNonEmptyString: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'a non-empty string');
// A NUL byte makes the platform refuse the spawn with a message that quotes the whole value,
// and env values are often credentials: refuse here, where the message can stay quiet.
const hasNul = (v: string): boolean => v.includes('\u0000');
const isProcessString: Check = (v) =>
  typeof v === 'string' && v.length > 0 && !hasNul(v) ? undefined : 'a non-empty string without NUL bytes';
const isProcessStringArray: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && !hasNul(x)) ? undefined : 'an array of strings without NUL bytes';
const isEnvRecord: Check = (v) =>
  isPlainRecord(v) && Object.entries(v).every(([k, x]) => typeof x === 'string' && !hasNul(x) && k.length > 0 && !hasNul(k) && !k.includes('='))
    ? undefined
    : "a record of strings (names without '=', nothing with NUL bytes)";
const isFunction: Check = (v) => (typeof v === 'function' ? undefined : 'a function');
const isStringArray: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'an array of strings';
const isStringRecord: Check = (v) =>
  isPlainRecord(v) && Object.values(v).every((x) => typeof x === 'string') ? undefined : 'a record of strings';

/**
 * A record of tool name to a value `valid` accepts; a refusal names the first tool whose value
 * is not (the host wrote these names, but a long one is cut so the message stays one line).
 */
function perTool(v: unknown, valid: (x: unknown) => boolean, expected: string): string | undefined {
  if (!isPlainRecord(v)) return expected;
  const bad = Object.keys(v).find((name) => !valid(v[name]));
  if (bad === undefined) return undefined;
  return `${expected} (not so for ${JSON.stringify(bad.length > 64 ? `${bad.slice(0, 64)}…` : bad)})`;
}

const COMMON_KEYS: Record<string, Check> = {
  transport: isString,
  id: isNonEmptyString,
  allow: isStringArray,
  deny: isStringArray,
  prefix: (v) =>
    typeof v === 'string' && /^[a-zA-Z0-9_-]{1,63}$/.test(v)
      ? undefined
      : "a string of 1 to 63 letters, digits, '_' or '-'",
  approval: (v) => (typeof v === 'boolean' ? undefined : perTool(v, (x) => typeof x === 'boolean', 'true, false, or a record of tool name to boolean')),
  risk: (v) => perTool(v, (x) => TOOL_RISKS.includes(x as ToolRisk), `a record of tool name to one of ${TOOL_RISKS.join(', ')}`),
  drift: (v) => (v === 'rekey' || v === 'refuse' ? undefined : "'rekey' or 'refuse'"),
  protocol: (v) => (PROTOCOL_OPTIONS.includes(v as ProtocolOption) ? undefined : "'auto', '2026-07-28' or '2025-11-25'"),
  onUnsupportedSchema: (v) => (v === 'refuse' || v === 'skip' ? undefined : "'refuse' or 'skip'"),
  onToolSkipped: isFunction,
  ...BOUND_CHECKS,
};

const TRANSPORT_KEYS: Record<McpTransportName, { required: string[]; checks: Record<string, Check> }> = {
  stdio: {
    required: ['command'],
    checks: {
      command: isProcessString,
      args: isProcessStringArray,
      env: isEnvRecord,
      cwd: isProcessString,
      stderr: (v) =>
        v === 'inherit' || v === 'ignore' || typeof v === 'function' ? undefined : "'inherit', 'ignore' or a function",
    },
  },
  'streamable-http': {
    required: ['url'],
    checks: { url: checkHttpUrl, http: checkHttpOptions },
  },
  inprocess: {
    required: ['server'],
    checks: {
      server: (v) =>
        typeof v === 'object' && v !== null && (typeof (v as { connect?: unknown }).connect === 'function' || typeof (v as { fetch?: unknown }).fetch === 'function')
          ? undefined
          : 'an MCP server instance (an SDK McpServer or Server) or a request handler with fetch (createMcpHandler)',
    },
  },
};

/** Validates `input` and returns it typed; throws ConfigError naming the first fault. */
export function parseMcpConfig(raw: unknown): McpConfig {
  if (!isPlainRecord(raw)) {
    throw new ConfigError('config.invalid_value', 'mcp(): the config must be an object');
  }
  // Copy first, check the copy: every value is read exactly once, so a getter cannot answer
  // the check with one value and the source with another.
  const input = snapshot(raw);
  const transport = input['transport'];
  if (transport === undefined) {
    throw new ConfigError('config.missing_key', "mcp(): 'transport' is required (stdio, streamable-http or inprocess)");
  }
  if (typeof transport !== 'string' || !Object.hasOwn(TRANSPORT_KEYS, transport)) {
    throw new ConfigError(
      'config.unknown_transport',
      `mcp(): unknown transport ${JSON.stringify(transport)}; expected stdio, streamable-http or inprocess`,
    );
  }
  const spec = TRANSPORT_KEYS[transport as McpTransportName];
  for (const [key, value] of Object.entries(input)) {
    const check = spec.checks[key] ?? COMMON_KEYS[key];
    if (check === undefined) {
      throw new ConfigError(
        'config.unknown_key',
        `mcp(): '${key}' is not a ${transport} option (allowed: ${[...Object.keys(spec.checks), ...Object.keys(COMMON_KEYS)].join(', ')})`,
      );
    }
    if (value === undefined) continue;
    const expected = check(value);
    if (expected !== undefined) {
      throw new ConfigError('config.invalid_value', `mcp(): '${key}' must be ${expected}`);
    }
  }
  for (const key of spec.required) {
    if (input[key] === undefined) {
      throw new ConfigError('config.missing_key', `mcp(): '${key}' is required for transport '${transport}'`);
    }
  }
  const config = input as unknown as McpConfig;
  assertRequiredBounds(config);
  return config;
}

function checkHttpUrl(value: unknown): string | undefined {
  const expected = 'an absolute http: or https: URL';
  if (typeof value !== 'string' && !(value instanceof URL)) return expected;
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return expected;
  // fetch refuses such URLs with a message that repeats them, password included.
  if (url.username !== '' || url.password !== '') return `${expected} without credentials in it (send them with http.headers)`;
  return undefined;
}

function checkHttpOptions(value: unknown): string | undefined {
  if (!isPlainRecord(value)) return 'an object with optional headers, fetch and authProvider';
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (key === 'headers') {
      if (typeof v === 'function' || isStringRecord(v) === undefined) continue;
      throw new ConfigError(
        'config.invalid_value',
        "mcp(): 'http.headers' must be a record of strings or a function returning one",
      );
    }
    if (key === 'fetch') {
      if (isFunction(v) === undefined) continue;
      throw new ConfigError('config.invalid_value', "mcp(): 'http.fetch' must be a function");
    }
    if (key === 'authProvider') {
      const missing = missingProviderMethods(v);
      if (missing === undefined) continue;
      throw new ConfigError('config.invalid_value', `mcp(): 'http.authProvider' must be an OAuthClientProvider (${missing})`);
    }
    throw new ConfigError('config.unknown_key', `mcp(): 'http.${key}' is not an http option (allowed: headers, fetch, authProvider)`);
  }
  return undefined;
}

/** What keeps a value from being a provider the SDK can drive, or undefined. Class instances are fine. */
function missingProviderMethods(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'an object';
  const provider = value as Record<string, unknown>;
  const missing = REQUIRED_PROVIDER_METHODS.filter((name) => typeof provider[name] !== 'function');
  if (missing.length > 0) return `missing ${missing.map((name) => `${name}()`).join(', ')}`;
  if (typeof provider['clientMetadata'] !== 'object' || provider['clientMetadata'] === null) return 'missing clientMetadata';
  return undefined;
}

/**
 * A frozen copy of what was checked, so a host changing its config object afterwards cannot
 * slip an unchecked value (or a looser filter) past validation. Functions and the server
 * instance are kept by reference: they are the host's to own.
 */
function snapshot(input: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...input };
  for (const [key, value] of Object.entries(copy)) {
    if (key === 'server') continue;
    if (Array.isArray(value)) copy[key] = Object.freeze([...(value as unknown[])]);
    else if (value instanceof URL) copy[key] = value.href;
    else if (isPlainRecord(value)) copy[key] = Object.freeze({ ...value });
  }
  return Object.freeze(copy);
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
