/**
 * What every provider adapter accepts, and where its API key comes from: the options, else
 * (on Node) the provider's environment variable, read through an optional `process` so the
 * same code loads on Workers and in browsers, where there is none.
 */
import { ConfigError } from '../core/errors.js';

/** A `fetch` the adapter calls instead of the global one (a proxy, a test server, a Worker binding). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ProviderOptions {
  /** Defaults to the provider's environment variable on Node. */
  apiKey?: string;
  fetch?: FetchLike;
  /** Retries of a 429, 5xx or network failure inside one generate() call. Default 2, at most 10. */
  maxRetries?: number;
  /**
   * Extra request headers; they cannot replace the authentication headers. Every value is
   * treated as a secret (Azure's `api-key`, a gateway's token) and kept out of errors.
   */
  headers?: Record<string, string>;
  /** Per attempt, from sending the request to reading the whole body. Default 10 minutes. */
  timeoutMs?: number;
}

export const DEFAULT_MAX_RETRIES = 2;
export const MAX_RETRIES = 10;
export const DEFAULT_TIMEOUT_MS = 600_000;

interface MaybeNode {
  process?: { env?: Record<string, string | undefined> };
}

/** The key from the options, else from `variable` where a Node-style environment exists. */
export function findApiKey(given: string | undefined, variable: string): string | undefined {
  if (given !== undefined) return given;
  const value = (globalThis as MaybeNode).process?.env?.[variable];
  return value === undefined || value === '' ? undefined : value;
}

/** `maxRetries` checked and capped: a host may ask for more, not for unbounded. */
export function retriesOf(options: ProviderOptions): number {
  const asked = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(asked) || asked < 0) throw new ConfigError('config.invalid_value', `maxRetries must be a non-negative integer, got ${String(asked)}`);
  return Math.min(asked, MAX_RETRIES);
}

export function timeoutOf(options: ProviderOptions): number {
  const asked = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(asked > 0) || !Number.isFinite(asked)) throw new ConfigError('config.invalid_value', `timeoutMs must be a positive number, got ${String(asked)}`);
  return asked;
}

/**
 * What the adapter must never repeat: the API key and every header value the caller gave.
 * The adapter cannot tell a tenant id from a gateway credential, so it treats all of them as
 * secrets. A value's words count too (`Token abc…` may come back as `abc…` alone); a leading
 * auth scheme such as `Basic` does not, or every mention of the word would be blanked.
 */
export function secretsOf(apiKey: string | undefined, options: ProviderOptions): string[] {
  const secrets = new Set<string>(apiKey === undefined ? [] : [apiKey]);
  for (const value of Object.values(options.headers ?? {})) {
    if (typeof value !== 'string') continue;
    secrets.add(value.trim());
    const words = value.trim().split(/\s+/);
    if (words.length > 1 && /^[A-Za-z-]{1,10}$/.test(words[0] ?? '')) words.shift();
    for (const word of words) secrets.add(word);
  }
  // Longest first: a value must be replaced before a word inside it is, or its rest would stay.
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** The caller's headers with lower-cased names, so spreading the auth headers after them replaces, not duplicates. */
export function extraHeaders(options: ProviderOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}
