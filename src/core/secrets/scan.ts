/**
 * Finding the forms of secrets in a text in linear time: one rolling-hash pass per distinct
 * needle length (forms shorter than WINDOW are needles whole; longer ones by every window of
 * WINDOW characters), candidates confirmed by comparing the characters, and every match
 * merged into one marker.
 */

/** What an echo of a secret is replaced with. */
export const REDACTED = '[redacted]';
/** Any run of this many characters of a secret counts as an echo of it. */
export const WINDOW = 16;
/** The start of a secret this long or longer, left where text was cut, is redacted too. */
const MIN_TAIL = 4;
/** What cutText puts where it cut (lower case, as the scan sees it). */
const CUT_MARKER = '… (cut: ';
/** Windows indexed per form of a secret: enough for any real token, bounded for a huge one. */
const MAX_WINDOWS_PER_FORM = 4_096;
const BASE = 31;

export interface Needles {
  readonly hashes: Set<number>;
  readonly strings: Set<string>;
}

export type Span = [number, number];

export function indexForms(forms: readonly string[]): Map<number, Needles> {
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

export function scan(lower: string, length: number, needles: Needles, spans: Span[]): void {
  if (lower.length < length) return;
  let hash = hashOf(lower, 0, length);
  const top = power(length - 1);
  for (let i = 0; ; i += 1) {
    if (needles.hashes.has(hash) && needles.strings.has(lower.slice(i, i + length))) spans.push([i, i + length]);
    if (i + length >= lower.length) return;
    hash = (Math.imul(hash - Math.imul(lower.charCodeAt(i), top), BASE) + lower.charCodeAt(i + length)) | 0;
  }
}

export function replaceSpans(text: string, spans: Span[]): string {
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

/**
 * Text cut short (cutText's marker) may end in the first few characters of a secret, too few
 * for a window to match: the characters before each marker that begin a form are redacted.
 */
export function cutTails(lower: string, forms: readonly string[], spans: Span[]): void {
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
