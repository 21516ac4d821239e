/**
 * Every value the Worker reads from its environment, checked in one place before any request
 * is served. A value that is missing or malformed is refused, named, as a 500 on every request
 * (`config.missing_key`, `config.invalid_value`): a Worker that guessed (an open API, a 24 h
 * deadline read from a typo) would run differently from what its operator wrote. Messages
 * name the binding and never quote a secret.
 *
 * Pure (no platform or library imports), so test/node/example-worker-config.test.ts loads it
 * directly.
 */
import { HttpError } from './http.js';

/** The secrets and vars, as wrangler hands them over (see env.ts for the bindings). */
export interface ConfigSource {
  readonly API_TOKEN?: unknown;
  readonly APPROVAL_LINK_SECRET?: unknown;
  readonly MCP_URL?: unknown;
  readonly MCP_TOKEN?: unknown;
  readonly APPROVAL_DEADLINE_MS?: unknown;
  readonly MODEL?: unknown;
  readonly MODEL_BASE_URL?: unknown;
  readonly ANTHROPIC_API_KEY?: unknown;
  readonly OPENAI_API_KEY?: unknown;
}

export type ModelConfig =
  | { readonly adapter: 'scripted'; readonly name: string }
  | { readonly adapter: 'anthropic' | 'openai'; readonly name: string; readonly apiKey: string; readonly baseURL?: string };

export interface WorkerConfig {
  /** The bearer token every API route requires. */
  readonly apiToken: string;
  /** The HMAC key of approval links; without it no link is issued or accepted. */
  readonly linkSecret?: string;
  readonly mcpUrl: string;
  readonly mcpToken?: string;
  readonly approvalDeadlineMs: number;
  readonly model: ModelConfig;
}

/** Secrets a caller must not be able to guess: `openssl rand -hex 32` makes one. */
export const MIN_SECRET_CHARS = 32;
/**
 * The shortest secret redact.ts looks for in an answer (shorter would match ordinary text).
 * Every secret is held to it, so none the Worker accepts can be echoed back past the redaction.
 */
export const MIN_SCRUBBED_CHARS = 8;
export const DEFAULT_DEADLINE_MS = 24 * 60 * 60 * 1000;
/** A year: past it an approval is no deadline at all, and Date arithmetic stays exact. */
export const MAX_DEADLINE_MS = 366 * DEFAULT_DEADLINE_MS;
/** A header value: visible ASCII, no spaces (a pasted trailing newline is the usual slip). */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

/** The Worker's configuration, or the HttpError (500) naming the first value at fault. */
export function readConfig(env: ConfigSource): WorkerConfig {
  const apiToken = secret(env, 'API_TOKEN', true, MIN_SECRET_CHARS);
  const linkSecret = secret(env, 'APPROVAL_LINK_SECRET', false, MIN_SECRET_CHARS);
  if (linkSecret === apiToken) throw invalid('APPROVAL_LINK_SECRET must differ from API_TOKEN: a link key of its own');
  const mcpToken = secret(env, 'MCP_TOKEN', false, MIN_SCRUBBED_CHARS);
  return {
    apiToken,
    ...(linkSecret === undefined ? {} : { linkSecret }),
    mcpUrl: httpUrl(env, 'MCP_URL', true) as string,
    ...(mcpToken === undefined ? {} : { mcpToken }),
    approvalDeadlineMs: deadlineMs(env.APPROVAL_DEADLINE_MS),
    model: modelConfig(env),
  };
}

function deadlineMs(raw: unknown): number {
  if (raw === undefined) return DEFAULT_DEADLINE_MS;
  // Digits only: Number() would take '', ' ', '1e3', '0x10' and '2000.5' too. A number is
  // what wrangler hands over for an unquoted value in [vars].
  const text = typeof raw === 'string' ? raw.trim() : '';
  const ms = typeof raw === 'number' ? raw : /^[0-9]{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(ms) && ms >= 1 && ms <= MAX_DEADLINE_MS)) {
    throw invalid(`APPROVAL_DEADLINE_MS must be a whole number of milliseconds from 1 to ${MAX_DEADLINE_MS}, got ${JSON.stringify(raw)}`);
  }
  return ms;
}

function modelConfig(env: ConfigSource): ModelConfig {
  const raw = env.MODEL;
  if (raw !== undefined && typeof raw !== 'string') throw invalid('MODEL must be a string');
  const name = raw === undefined || raw.trim() === '' ? 'scripted:demo' : raw.trim();
  const colon = name.indexOf(':');
  if (colon <= 0 || colon === name.length - 1) throw invalid(`MODEL must look like 'adapterId:model', got ${JSON.stringify(name)}`);
  const adapter = name.slice(0, colon);
  const baseURL = httpUrl(env, 'MODEL_BASE_URL', false);
  if (adapter === 'scripted') return { adapter, name };
  if (adapter !== 'anthropic' && adapter !== 'openai') {
    throw new HttpError(500, 'model.unknown_adapter', `MODEL names adapter ${JSON.stringify(adapter)}; this Worker has 'anthropic', 'openai' and 'scripted' (unset MODEL runs the scripted demo)`);
  }
  const binding = adapter === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = secret(env, binding, true, MIN_SCRUBBED_CHARS, `MODEL uses ${JSON.stringify(adapter)}, which needs`);
  return { adapter, name, apiKey, ...(baseURL === undefined ? {} : { baseURL }) };
}

/** A secret binding: unset (or empty) is absent; set, it must look like a token. */
function secret(env: ConfigSource, binding: keyof ConfigSource, required: true, minChars: number, who?: string): string;
function secret(env: ConfigSource, binding: keyof ConfigSource, required: false, minChars: number): string | undefined;
function secret(env: ConfigSource, binding: keyof ConfigSource, required: boolean, minChars: number, who = 'the Worker needs'): string | undefined {
  const value = env[binding];
  if (value === undefined || value === '') {
    if (!required) return undefined;
    throw new HttpError(500, 'config.missing_key', `${who} the ${binding} secret (npx wrangler secret put ${binding}); it answers nothing else until it is set`);
  }
  if (typeof value !== 'string' || !TOKEN_CHARS.test(value)) throw invalid(`${binding} must be visible ASCII with no spaces or line breaks`);
  // The Worker's own secrets are made with openssl; the others are issued elsewhere, and only too short to redact.
  const hint = minChars === MIN_SECRET_CHARS ? ' (openssl rand -hex 32 makes one)' : ': shorter, the Worker could not tell it from text to cut it from its answers';
  if (value.length < minChars) throw invalid(`${binding} must be at least ${minChars} characters${hint}`);
  return value;
}

/** An http(s) URL var with no credentials in it (those belong in a secret). */
function httpUrl(env: ConfigSource, binding: 'MCP_URL' | 'MODEL_BASE_URL', required: boolean): string | undefined {
  const value = env[binding];
  if (value === undefined || value === '') {
    if (required) throw new HttpError(500, 'config.missing_key', `the Worker needs the ${binding} var (wrangler.toml or .dev.vars)`);
    return undefined;
  }
  // The value is not quoted: a URL with a password in it would put that password in the answer.
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid(`${binding} must be an http or https URL`);
  if (url.username !== '' || url.password !== '') throw invalid(`${binding} must not carry credentials; the token goes in a secret`);
  return value as string;
}

function invalid(message: string): HttpError {
  return new HttpError(500, 'config.invalid_value', message);
}
