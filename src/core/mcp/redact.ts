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
/** Rotating tokens add a value per rotation: the latest ones are kept. */
const MAX_REMEMBERED = 16;
/** Windows indexed per form of a secret: enough for any real token, bounded for a huge one. */
const MAX_WINDOWS_PER_FORM = 4_096;
const BASE = 31;

interface Needles {
  readonly hashes: Set<number>;
  readonly strings: Set<string>;
}

export class Redactor {
  private readonly remembered: string[] = [];
  private byLength = new Map<number, Needles>();

  /** True once there is anything to redact; before that every method is the identity. */
  get active(): boolean {
    return this.remembered.length > 0;
  }

  /** Records a value sent on the wire. Cheap for a value already known. */
  remember(value: string): void {
    if (value.length < MIN_SECRET || this.remembered.includes(value)) return;
    this.remembered.push(value);
    if (this.remembered.length > MAX_REMEMBERED) this.remembered.shift();
    this.byLength = indexForms(this.remembered.flatMap(formsOf));
  }

  text(text: string): string {
    if (!this.active || text.length < MIN_SECRET) return text;
    const lower = asciiLower(text);
    const spans: [number, number][] = [];
    for (const [length, needles] of this.byLength) scan(lower, length, needles, spans);
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
  const words = value.split(/[\s,;]+/).filter((word) => word.length > 0);
  // `Bearer x`: the scheme word is no secret (and would blank every mention of "bearer").
  if (words.length > 1 && /^[A-Za-z-]{1,10}$/.test(words[0] as string)) words.shift();
  const parts = new Set([value, ...words]);
  for (const part of [...parts]) for (const decoded of base64Credentials(part)) parts.add(decoded);
  const forms = new Set<string>();
  for (const part of parts) {
    if (part.length < MIN_SECRET) continue;
    forms.add(part);
    forms.add(urlEncoded(part));
    forms.add(JSON.stringify(part).slice(1, -1));
    forms.add(toBase64(part));
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
