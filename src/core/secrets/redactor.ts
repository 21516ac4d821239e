/**
 * The one redactor of this library: secrets a request carried (an MCP source's `http.headers`
 * values and OAuth tokens, a model adapter's API key and `headers` values) removed from what
 * comes back before anything keeps it: error messages and their causes, tool outputs, model
 * answers. Whoever receives a value can echo it anywhere: an error body, a JSON-RPC message,
 * a tool result, a model's text. Echoes are caught whole, in part (any WINDOW characters in a
 * row), in other letter case, and re-encoded the usual ways (URL encoding, JSON escaping,
 * base64, the parts of `Bearer x`, `name=value` or `Basic base64(user:pass)`), and replaced by
 * a marker (forms.ts, scan.ts).
 *
 * Matching is one rolling-hash pass per distinct needle length (at most WINDOW - MIN_SECRET
 * + 1 of them), so the cost is linear in the text whatever the secrets look like.
 */
import { MIN_SECRET, asciiLower, formsOf } from './forms.js';
import { cutTails, indexForms, replaceSpans, scan, type Needles, type Span } from './scan.js';
import { scrubStrings } from './walk.js';

/** Values a header carried before its current one that are still scrubbed. */
const MAX_PREVIOUS = 16;
/** Header names whose current value is kept (the oldest name beyond it is retired). */
const MAX_HEADERS = 64;

export class Redactor {
  /** A redactor of fixed values (an adapter's key and header values), named by their order. */
  static of(values: Iterable<string>): Redactor {
    const redactor = new Redactor();
    redactor.remember([...values].map((value, i) => [String(i), value] as const));
    return redactor;
  }

  /** The value each header carried last: always kept, however many others come and go. */
  private readonly current = new Map<string, string>();
  /** Values headers carried before (a token rotated out may still be echoed), latest last. */
  private readonly previous: string[] = [];
  private forms: string[] = [];
  private byLength = new Map<number, Needles>();

  /** True once there is anything to redact; before that every method is the identity. */
  get active(): boolean {
    return this.forms.length > 0;
  }

  /** Records the headers one request was sent with. Cheap when no value changed. */
  remember(headers: readonly (readonly [string, string])[]): void {
    let changed = false;
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      const before = this.current.get(key);
      if (before === value) continue;
      changed = true;
      this.current.set(key, value);
      // A value that changes on every request (a request id) only ever displaces old values
      // of the history, never what any header carries now.
      if (before !== undefined) this.retire(before);
      // Header names are the host's, but a hook could still invent one per request.
      if (this.current.size > MAX_HEADERS) {
        const [oldest, last] = this.current.entries().next().value as [string, string];
        this.current.delete(oldest);
        this.retire(last);
      }
    }
    if (!changed) return;
    const values = [...new Set([...this.current.values(), ...this.previous])].filter((v) => v.length >= MIN_SECRET);
    this.forms = values.flatMap(formsOf);
    this.byLength = indexForms(this.forms);
  }

  private retire(value: string): void {
    if (value.length < MIN_SECRET) return;
    this.previous.push(value);
    if (this.previous.length > MAX_PREVIOUS) this.previous.shift();
  }

  text(text: string): string {
    if (!this.active || text.length < MIN_SECRET) return text;
    const lower = asciiLower(text);
    const spans: Span[] = [];
    for (const [length, needles] of this.byLength) scan(lower, length, needles, spans);
    cutTails(lower, this.forms, spans);
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }

  /**
   * Every string, and every key, of `value`: a string is returned clean, containers are
   * edited in place, so give it only a value you own (freshly parsed from the wire).
   */
  value<T>(value: T): T {
    return this.active ? scrubStrings(value, (text) => this.text(text)) : value;
  }
}

/**
 * `redact` functions made from the shared redactor. It finds a secret from any WINDOW
 * characters of it, so a stream scrubbed with one need hold back no more than that; any other
 * `redact` may match whole keys only, and the engine holds back far more for it.
 */
const windowed = new WeakSet<object>();

/** `redactor` as a ModelAdapter `redact` (model/types.ts), known to the engine as windowed. */
export function redactFunction(redactor: Redactor): (text: string) => string {
  const redact = (text: string): string => redactor.text(text);
  windowed.add(redact);
  return redact;
}

/** Whether `redact` was made by redactFunction (so finds secrets within WINDOW characters). */
export function isWindowed(redact: unknown): boolean {
  return typeof redact === 'function' && windowed.has(redact);
}

/**
 * The shared redactor over fixed values, as a function: what a custom ModelAdapter can give as
 * its `redact` (model/types.ts) to have its key and header values scrubbed the way the
 * built-in adapters scrub theirs. Values shorter than 6 characters are not treated as secrets.
 */
export function secretRedactor(secrets: Iterable<string>): (text: string) => string {
  return redactFunction(Redactor.of(secrets));
}
