/**
 * Typed errors with stable, dotted, lowercase codes. Messages name the thing at fault and
 * never carry header values or other secrets. Guards work across bundles and realms by
 * checking `name` as well as the prototype chain, because a Worker and its host, or two
 * copies of this package, do not share classes.
 */

/** Every code a RulvarError can carry. Documented in docs/errors.md. */
export type RulvarErrorCode =
  | 'config.unknown_transport'
  | 'config.transport_unavailable'
  | 'config.unknown_key'
  | 'config.missing_key'
  | 'config.invalid_value'
  | 'config.bounds_required'
  | 'tool.invalid_name'
  | 'tool.duplicate_name'
  | 'toolset.unknown_name'
  | 'toolset.duplicate_name'
  | 'toolset.attestation_mismatch'
  | 'json.invalid_value'
  | 'discovery.cursor_echo'
  | 'discovery.cursor_cycle'
  | 'discovery.max_tools'
  | 'discovery.max_pages'
  | 'discovery.deadline'
  | 'discovery.page_timeout'
  | 'connect.timeout'
  | 'schema.too_large'
  | 'schema.unsupported'
  | 'source.drift_refused'
  | 'source.unavailable'
  | 'source.closed'
  | 'source.cancelled'
  | 'source.protocol'
  | 'http.header_hook'
  | 'model.unknown_adapter'
  | 'model.failed'
  | 'model.protocol'
  | 'agent.unknown_type'
  | 'agent.max_turns'
  | 'workflow.failed'
  | 'step.duplicate_name'
  | 'run.aborted'
  | 'run.claimed'
  | 'run.lease_lost'
  | 'journal.run_exists'
  | 'journal.unknown_run'
  | 'journal.workflow_mismatch'
  | 'journal.args_mismatch'
  | 'journal.conflict'
  | 'journal.corrupt'
  | 'journal.unavailable'
  | 'journal.cannot_list';

export interface RulvarErrorOptions {
  readonly cause?: unknown;
}

const ERROR_NAMES = new Set(['RulvarError', 'ConfigError', 'SourceError']);

export class RulvarError extends Error {
  override readonly name: string = 'RulvarError';
  readonly code: RulvarErrorCode;

  constructor(code: RulvarErrorCode, message: string, options?: RulvarErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  static is(value: unknown): value is RulvarError {
    return value instanceof RulvarError || (isErrorLike(value) && ERROR_NAMES.has(value.name));
  }
}

/** Configuration, names, schemas, bounds and guards: the host's decisions, refused early. */
export class ConfigError extends RulvarError {
  override readonly name: string = 'ConfigError';

  static override is(value: unknown): value is ConfigError {
    return value instanceof ConfigError || (isErrorLike(value) && value.name === 'ConfigError');
  }
}

/** Transport and protocol failures: the server is gone, closed, or speaking nonsense. */
export class SourceError extends RulvarError {
  override readonly name: string = 'SourceError';

  static override is(value: unknown): value is SourceError {
    return value instanceof SourceError || (isErrorLike(value) && value.name === 'SourceError');
  }
}

function isErrorLike(value: unknown): value is { name: string; code: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** A short, secret-free description of an unknown thrown value, for messages. */
export function describeCause(cause: unknown): string {
  let text: string;
  try {
    const raw: unknown = cause instanceof Error ? cause.message : cause;
    // A message that is no string (a getter's odd answer) is read as String reads it.
    text = typeof raw === 'string' ? raw : String(raw);
  } catch {
    text = 'an unprintable value'; // Object.create(null) and friends cannot become strings
  }
  // A server's error body ends up here; it should inform, not flood.
  return cutText(text, MAX_CAUSE_CHARS);
}

/** Longest description of a cause (an error body, a JSON-RPC message) put into a message. */
export const MAX_CAUSE_CHARS = 500;

/** Longest server-written error text (an `isError` result's text) handed to a model. */
export const MAX_SERVER_TEXT_CHARS = 4_000;

/** `text` cut to `max` characters, saying how long it was; never splits a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}… (cut: ${text.length} characters in all)`;
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

/**
 * Makes a library error fit to be seen: `clean` (the source's secret scrubber) applied to its
 * message, and its cause replaced by a copy holding only the cause's name, code and cleaned
 * message, cut to MAX_CAUSE_CHARS. An SDK error keeps a server's whole error body in its
 * message; the original is not kept, so nothing downstream can print it by accident.
 */
export function withSafeCause<E extends Error>(error: E, clean: (text: string) => string): E {
  error.message = clean(error.message);
  if (error.cause !== undefined) {
    const original: unknown = error.cause;
    const copy = new Error(clean(describeCause(original)));
    if (original instanceof Error) copy.name = original.name;
    const code: unknown = (original as { code?: unknown } | null)?.code;
    if (typeof code === 'number' || typeof code === 'string') Object.assign(copy, { code });
    error.cause = copy;
  }
  return error;
}
