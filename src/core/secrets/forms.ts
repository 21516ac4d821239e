/**
 * The ways a secret can come back from whoever it was sent to (an MCP server, a model
 * provider): whole, by its parts (the token of `Bearer x`, the value of `name=value`, both
 * halves of `Basic base64(user:pass)`), URL-encoded, JSON-escaped (also with `\\/`), and base64-encoded at any byte offset inside longer text.
 * Every form is in ASCII lower case, as the scan compares.
 */

/** Shorter values ("1", "yes") are not treated as secrets. */
export const MIN_SECRET = 6;

/** The ways a value can come back: whole, by parts, and in the common encodings. */
export function formsOf(value: string): string[] {
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

/**
 * `Basic dXNlcjpwYXNz` carries `user:pass`: the decoded text and both halves. The words of a
 * value are split at `=`, which strips base64 padding, so a part is padded back first.
 */
function base64Credentials(part: string): string[] {
  const padded = part.length % 4 === 0 ? part : part + '='.repeat(4 - (part.length % 4));
  if (part.length < 8 || !/^[A-Za-z0-9+/]+={0,2}$/.test(padded)) return [];
  let decoded: string;
  try {
    decoded = atob(padded);
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
  const bytes = new TextEncoder().encode(part).length;
  for (const pad of ['', 'x', 'xx']) {
    const encoded = toBase64(pad + part);
    // Whole 3-byte groups encode the same whatever follows; the last, partial one does not.
    const stable = encoded.slice(pad === '' ? 0 : 4, Math.floor((pad.length + bytes) / 3) * 4);
    if (stable.length >= MIN_SECRET) forms.push(stable);
  }
  return forms;
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Lower case for ASCII letters only, so positions in the copy are positions in the text. */
export function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text;
}
