/**
 * Secrets the host injected into wire requests (every `http.headers` value) and their removal
 * from what this library writes: error messages and their causes, and tool outputs, which go
 * to a model and into history. A server sees these values on every request, so a hostile or
 * careless one can echo them anywhere: an error body, a JSON-RPC message, a content type, a
 * tool result. Echoes are caught whole, in part (any WINDOW characters in a row), in other
 * letter case, and re-encoded the usual ways (URL encoding, JSON escaping, base64, the parts
 * of `Bearer x` or `Basic base64(user:pass)`), and replaced by a marker (secret-scan.ts).
 *
 * Matching is one rolling-hash pass per distinct needle length (at most WINDOW - MIN_SECRET
 * + 1 of them), so the cost is linear in the text whatever the secrets look like.
 */
import { isToolError, toolError } from '../tools/tool-error.js';
import { MIN_SECRET, asciiLower, formsOf } from './secret-forms.js';
import { cutTails, indexForms, replaceSpans, scan, type Needles, type Span } from './secret-scan.js';


/** Values a header carried before its current one that are still scrubbed. */
const MAX_PREVIOUS = 16;
/** Header names whose current value is kept (the oldest name beyond it is retired). */
const MAX_HEADERS = 64;

export class Redactor {
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
   * Every string (and key) in a tool's output. Only an HTTP source injects headers, and its
   * results are freshly parsed from the wire, so containers are edited in place; the walk is
   * iterative because a server's value may nest deeper than the stack.
   */
  output(value: unknown): unknown {
    if (!this.active) return value;
    if (isToolError(value)) return toolError(value.reason, this.text(value.message));
    if (typeof value === 'string') return this.text(value);
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const node = pending.pop();
      if (typeof node !== 'object' || node === null) continue;
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        if (typeof child === 'string') record[key] = this.text(child);
        else pending.push(child);
        const clean = Array.isArray(record) ? key : this.text(key);
        if (clean !== key) {
          record[clean] = record[key];
          delete record[key];
        }
      }
    }
    return value;
  }
}
