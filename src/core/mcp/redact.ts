/**
 * Secrets the host injected into wire requests (every `http.headers` value) and their removal
 * from what this library writes: error messages and their causes, and tool outputs, which go
 * to a model and into history. A server sees these values on every request, so a hostile or
 * careless one can echo them anywhere: an error body, a JSON-RPC message, a content type, a
 * tool result. Echoes are caught whole, in part (any WINDOW characters in a row), in other
 * letter case, and re-encoded the usual ways (URL encoding, JSON escaping, base64, the parts
 * of `Bearer x` or `Basic base64(user:pass)`), and replaced by REDACTED.
 *
 * Matching is one rolling-hash pass per distinct needle length (at most WINDOW - MIN_SECRET
 * + 1 of them), so the cost is linear in the text whatever the secrets look like.
 */
import { isToolError, toolError } from '../tools/tool-error.js';

export const REDACTED = '[redacted]';

/** Shorter header values ("1", "yes") are not treated as secrets. */
const MIN_SECRET = 6;
/** Any run of this many characters of a secret counts as an echo of it. */
const WINDOW = 16;
/** The start of a secret this long or longer, left where text was cut, is redacted too. */
const MIN_TAIL = 4;
/** What cutText puts where it cut (lower case, as the scan sees it). */
const CUT_MARKER = '… (cut: ';
/** Values a header carried before its current one that are still scrubbed. */
const MAX_PREVIOUS = 16;
/** Header names whose current value is kept (the oldest name beyond it is retired). */
const MAX_HEADERS = 64;
/** Windows indexed per form of a secret: enough for any real token, bounded for a huge one. */
const MAX_WINDOWS_PER_FORM = 4_096;
const BASE = 31;

interface Needles {
  readonly hashes: Set<number>;
  readonly strings: Set<string>;
}

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
    const spans: [number, number][] = [];
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

/** The ways a value can come back: whole, by parts, and in the common encodings. */
function formsOf(value: string): string[] {
  const words = value.split(/[\s,;=]+/).filter((word) => word.length > 0);
  // `Bearer x`: the scheme word is no secret (and would blank every mention of "bearer").
  if (words.length > 1 && /^[A-Za-z-]{1,10}$/.test(words[0] as string)) words.shift();
  const parts = new Set([value, ...words]);
  for (const part of [...parts]) for (const decoded of base64Credentials(part)) parts.add(decoded);
  const forms = new Set<string>();
  for (const part of parts) {
    if (part.length < MIN_SECRET) continue;
    forms.add(part);
    forms.add(urlEncoded(part));
    const escaped = JSON.stringify(part).slice(1, -1);
    forms.add(escaped);
    forms.add(escaped.replace(/\//g, '\\/'));
    for (const form of base64Forms(part)) forms.add(form);
  }
  return [...forms].map(asciiLower);
}

/** `Basic dXNlcjpwYXNz` carries `user:pass`: the decoded text and both halves. */
function base64Credentials(part: string): string[] {
  if (part.length < 8 || part.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(part)) return [];
  let decoded: string;
  try {
    decoded = atob(part);
  } catch {
    return [];
  }
  // Only text: random base64 decodes to bytes that would match nothing anyway.
  if (!/^[\x20-\x7e]+$/.test(decoded)) return [];
  return [decoded, ...decoded.split(':')];
}

function urlEncoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text; // a lone surrogate: no URL encoding exists, so none can come back
  }
}

/**
 * Base64 of the value on its own, and of the stretch of it that stays the same whatever
 * came before or after it inside a longer encoded text (0, 1 or 2 bytes of offset).
 */
function base64Forms(part: string): string[] {
  const forms = [toBase64(part)];
  for (const pad of ['', 'x', 'xx']) {
    const encoded = toBase64(pad + part);
    const stable = encoded.slice(pad === '' ? 0 : 4, encoded.length - 4);
    if (stable.length >= MIN_SECRET) forms.push(stable);
  }
  return forms;
}

/**
 * Text cut short (cutText's marker) may end in the first few characters of a secret, too few
 * for a window to match: the characters before each marker that begin a form are redacted.
 */
function cutTails(lower: string, forms: readonly string[], spans: [number, number][]): void {
  for (let at = lower.indexOf(CUT_MARKER); at !== -1; at = lower.indexOf(CUT_MARKER, at + 1)) {
    for (let length = Math.min(at, WINDOW - 1); length >= MIN_TAIL; length -= 1) {
      const tail = lower.slice(at - length, at);
      if (forms.some((form) => form.startsWith(tail))) {
        spans.push([at - length, at]);
        break;
      }
    }
  }
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function indexForms(forms: readonly string[]): Map<number, Needles> {
  const byLength = new Map<number, Needles>();
  const add = (needle: string) => {
    let entry = byLength.get(needle.length);
    if (entry === undefined) byLength.set(needle.length, (entry = { hashes: new Set(), strings: new Set() }));
    entry.hashes.add(hashOf(needle, 0, needle.length));
    entry.strings.add(needle);
  };
  for (const form of forms) {
    if (form.length < WINDOW) add(form);
    else for (let i = 0; i + WINDOW <= form.length && i < MAX_WINDOWS_PER_FORM; i += 1) add(form.slice(i, i + WINDOW));
  }
  return byLength;
}

function scan(lower: string, length: number, needles: Needles, spans: [number, number][]): void {
  if (lower.length < length) return;
  let hash = hashOf(lower, 0, length);
  const top = power(length - 1);
  for (let i = 0; ; i += 1) {
    if (needles.hashes.has(hash) && needles.strings.has(lower.slice(i, i + length))) spans.push([i, i + length]);
    if (i + length >= lower.length) return;
    hash = (Math.imul(hash - Math.imul(lower.charCodeAt(i), top), BASE) + lower.charCodeAt(i + length)) | 0;
  }
}

function replaceSpans(text: string, spans: [number, number][]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  let index = 0;
  while (index < spans.length) {
    const [start] = spans[index] as [number, number];
    let end = (spans[index] as [number, number])[1];
    // Overlapping and touching windows of one echo become one marker.
    while (index + 1 < spans.length && (spans[index + 1] as [number, number])[0] <= end) {
      index += 1;
      end = Math.max(end, (spans[index] as [number, number])[1]);
    }
    out += text.slice(at, start) + REDACTED;
    at = end;
    index += 1;
  }
  return out + text.slice(at);
}

function hashOf(text: string, from: number, to: number): number {
  let hash = 0;
  for (let i = from; i < to; i += 1) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

function power(exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i += 1) result = Math.imul(result, BASE);
  return result;
}

/** Lower case for ASCII letters only, so positions in the copy are positions in the text. */
function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text;
}
