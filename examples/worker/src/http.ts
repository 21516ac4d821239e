/**
 * HTTP errors and request bodies. Every error the Worker answers is JSON
 * `{ error: { code, message } }` (error-response.ts turns whatever was thrown into one).
 * Pure: no platform or library imports, so Node tests load it directly.
 */

export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export function jsonError(status: number, code: string, message: string, headers: Readonly<Record<string, string>> = {}): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

export function methodNotAllowed(allowed: string): HttpError {
  return new HttpError(405, 'request.method_not_allowed', `use ${allowed} here`, { allow: allowed });
}

/** Bodies are small JSON objects; anything bigger is refused before it is parsed. */
const MAX_BODY_BYTES = 64 * 1024;

/** The request's body as a JSON object, or a 400/413 that says what is wrong with it. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const text = await readText(request);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request.invalid_json', 'the body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'request.invalid_body', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A body that is either an HTML form's (`application/x-www-form-urlencoded`) or a JSON object. */
export async function readFields(request: Request): Promise<{ fields: Record<string, unknown>; form: boolean }> {
  if (!(request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) return { fields: await readJsonObject(request), form: false };
  // A repeated field keeps its first value, as a form with one of each sends it.
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of new URLSearchParams(await readText(request))) if (!Object.hasOwn(fields, name)) fields[name] = value;
  return { fields, form: true };
}

async function readText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > MAX_BODY_BYTES) throw tooLarge();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'request.invalid_json', 'the body is not UTF-8');
  }
}

/** A string field of `body`, required or optional, at most `maxChars` long. */
export function stringField(body: Record<string, unknown>, name: string, maxChars: number, required: true): string;
export function stringField(body: Record<string, unknown>, name: string, maxChars: number, required: false): string | undefined;
export function stringField(body: Record<string, unknown>, name: string, maxChars: number, required: boolean): string | undefined {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    throw new HttpError(400, 'request.invalid_body', `"${name}" must be a ${required ? 'non-empty ' : ''}string`);
  }
  if (value.length > maxChars) throw new HttpError(400, 'request.invalid_body', `"${name}" is longer than ${maxChars} characters`);
  return value;
}

function tooLarge(): HttpError {
  return new HttpError(413, 'request.too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`);
}
