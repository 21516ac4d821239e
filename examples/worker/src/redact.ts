/**
 * The last line before anything leaves the Worker: every answer's body is searched for the
 * secrets the Worker holds (API_TOKEN, APPROVAL_LINK_SECRET, MCP_TOKEN, the provider keys),
 * whole and in the encodings an echo usually takes (JSON-escaped, twice; HTML-escaped;
 * URL-encoded; base64 and base64url at any byte offset), in any ASCII letter case, and each
 * is replaced by `[redacted]`. The library already keeps what its sources and adapters send out of what
 * they return; this catches what gets past it anyway (a provider echoing its key in a 200, a
 * tool result quoting a header), from every route: run views, journals, errors, link pages.
 *
 * Cost: one indexOf pass per form (at most 12 forms of 5 secrets) over the body. A JSON body
 * that no longer parses after a replacement is refused whole rather than sent broken.
 *
 * Pure, so test/node/example-worker-config.test.ts loads it directly.
 */
import { MIN_SCRUBBED_CHARS, type ConfigSource } from './config.js';

export const REDACTED = '[redacted]';
/** Shorter values would match ordinary text; config.ts refuses any secret shorter. */
const MIN_SECRET_CHARS = MIN_SCRUBBED_CHARS;
const SECRET_BINDINGS = ['API_TOKEN', 'APPROVAL_LINK_SECRET', 'MCP_TOKEN', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] as const;

/** The forms to look for, in ASCII lower case, longest first (so a longer form is cut whole). */
export function secretForms(env: ConfigSource): string[] {
  const forms = new Set<string>();
  for (const binding of SECRET_BINDINGS) {
    const value = env[binding];
    if (typeof value !== 'string' || value.length < MIN_SECRET_CHARS) continue;
    const escaped = JSON.stringify(value).slice(1, -1);
    // HTML-escaped too, as a link's page shows a call's input (JSON, then HTML-escaped).
    for (const form of [value, escaped, JSON.stringify(escaped).slice(1, -1), htmlEscaped(value), htmlEscaped(escaped), encodeURIComponent(value), ...base64Forms(value)]) {
      if (form.length >= MIN_SECRET_CHARS) forms.add(asciiLower(form));
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every form of a secret replaced by REDACTED. */
export function redactText(text: string, forms: readonly string[]): string {
  if (forms.length === 0) return text;
  const lower = asciiLower(text);
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + form.length)) spans.push([at, at + form.length]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  // Overlapping or touching spans become one marker.
  let out = '';
  let [from, to] = spans[0] as [number, number];
  let done = 0;
  for (const [start, end] of spans) {
    if (start <= to) to = Math.max(to, end);
    else {
      out += text.slice(done, from) + REDACTED;
      [done, from, to] = [to, start, end];
    }
  }
  return out + text.slice(done, from) + REDACTED + text.slice(to);
}

/** The response with its body redacted (headers are the Worker's own and carry no secret). */
export async function redactResponse(response: Response, forms: readonly string[]): Promise<Response> {
  if (forms.length === 0 || response.body === null) return response;
  const text = await response.text();
  const clean = redactText(text, forms);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (clean !== text && (headers.get('content-type') ?? '').includes('json') && !parses(clean)) {
    return Response.json({ error: { code: 'worker.redaction_failed', message: 'the answer held a secret and could not be cut cleanly, so it was withheld' } }, { status: 500 });
  }
  return new Response(clean, { status: response.status, statusText: response.statusText, headers });
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Base64 (and base64url) of the value's UTF-8 bytes as they appear inside a longer encoded
 * text: at each of the three byte offsets, the characters that depend on the value's bytes
 * alone (the first and last group, which mix in neighbouring bytes, are left off).
 */
function base64Forms(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    let binary = '';
    for (const byte of padded) binary += String.fromCharCode(byte);
    const encoded = btoa(binary).replace(/=+$/, '');
    const rest = padded.length % 3;
    const stable = encoded.slice(offset === 0 ? 0 : 4, encoded.length - (rest === 0 ? 0 : rest + 1));
    forms.push(stable, stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** As link-page.ts escapes what it shows. */
function htmlEscaped(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}
