/**
 * What every provider adapter accepts, checked once when the adapter is made, and where its
 * API key comes from: the options, else (on Node) the provider's environment variable, read
 * through an optional `process` so the same code loads on Workers and in browsers.
 */
import { ConfigError } from '../core/errors.js';
import { Redactor } from '../core/secrets/redactor.js';

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
   * treated as a secret (Azure's `api-key`, a gateway's token) and kept out of errors and answers.
   */
  headers?: Record<string, string>;
  /** Per attempt, from sending the request to reading the whole body. Default 10 minutes. */
  timeoutMs?: number;
  /** The largest answer body read, in bytes; a longer one is `model.protocol`. Default 32 MiB. A stream's bytes count too. */
  maxResponseBytes?: number;
  /** Streaming: the longest silence between two reads of the stream, a retryable cut past it. Default 2 minutes. */
  idleTimeoutMs?: number;
  /** Streaming: the largest server-sent event, in bytes; a larger one is `model.protocol`. Default 1 MiB. */
  maxEventBytes?: number;
}

export const DEFAULT_MAX_RETRIES = 2;
export const MAX_RETRIES = 10;
export const DEFAULT_TIMEOUT_MS = 600_000;
/**
 * The largest real answers are a few MB: 128k output tokens of text or tool input is about
 * 0.5 MB, JSON-escaped at most a few times that. 32 MiB leaves room for ten times as much and
 * still bounds what a hostile proxy can make a Worker (128 MB of memory) hold.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Providers send a ping or a token well within seconds; a reasoning model's silence within a minute or so. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** A delta event is a few hundred bytes; a message_start carries the message's metadata only. */
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/** What one adapter sends with: its options checked, its secrets known. */
export interface Transport {
  readonly fetch: FetchLike;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly idleTimeoutMs: number;
  readonly maxEventBytes: number;
  /** Scrubs the API key and every header value from errors and answers. */
  readonly redactor: Redactor;
}

export function transportOf(options: ProviderOptions, apiKey: string | undefined): Transport {
  return {
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    maxRetries: retriesOf(options),
    timeoutMs: positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs', false),
    maxResponseBytes: positive(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes', true),
    idleTimeoutMs: positive(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, 'idleTimeoutMs', false),
    maxEventBytes: positive(options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES, 'maxEventBytes', true),
    redactor: redactorOf(apiKey, options),
  };
}

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

function positive(asked: number, name: string, integer: boolean): number {
  const fits = integer ? Number.isSafeInteger(asked) && asked > 0 : Number.isFinite(asked) && asked > 0;
  if (!fits) throw new ConfigError('config.invalid_value', `${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(asked)}`);
  return asked;
}

/**
 * What the adapter must never repeat: the API key and every header value the caller gave.
 * The adapter cannot tell a tenant id from a gateway credential, so it treats all of them as
 * secrets; the redactor also finds their parts (`Token abc…` may come back as `abc…` alone).
 */
export function redactorOf(apiKey: string | undefined, options: ProviderOptions): Redactor {
  const values = Object.values(options.headers ?? {}).filter((value): value is string => typeof value === 'string');
  return Redactor.of(apiKey === undefined ? values : [apiKey, ...values]);
}

/** The caller's headers with lower-cased names, so spreading the auth headers after them replaces, not duplicates. */
export function extraHeaders(options: ProviderOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}
