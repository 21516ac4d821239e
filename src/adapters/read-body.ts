/**
 * A provider's answer body read within a byte bound: refused from its `content-length` before
 * a byte is read, and counted while the stream is read, so no more than the bound (plus one
 * chunk) is ever held, whatever the header claims. A success body must be UTF-8; an error
 * body is only read for its detail, so it is cut at a small bound instead of refused.
 */

/** What is read of an error body: enough for any provider's message, little for a flood. */
export const ERROR_BODY_BYTES = 64 * 1024;

export type BodyRead =
  | { readonly text: string }
  /** `declared` when the content-length header alone was past the bound. */
  | { readonly tooLarge: true; readonly declared?: number }
  | { readonly undecodable: true };

export async function readBody(response: Response, maxBytes: number, signal: AbortSignal): Promise<BodyRead> {
  const declared = declaredLength(response.headers);
  if (declared !== undefined && declared > maxBytes) {
    discard(response);
    return { tooLarge: true, declared };
  }
  const read = await readUpTo(response, maxBytes, true, signal);
  if (read.over) return { tooLarge: true };
  return read.text === undefined ? { undecodable: true } : { text: read.text };
}

/** The start of an error body, decoded leniently (a broken byte is only a broken detail). */
export async function readErrorBody(response: Response, signal: AbortSignal): Promise<string> {
  return (await readUpTo(response, ERROR_BODY_BYTES, false, signal)).text ?? '';
}

/** The body left unread: the connection is released instead of the bytes being pulled. */
export function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** The body's size as its `content-length` declares it, when that is a plain count. */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length')?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * Up to `maxBytes` of the body as text; `over` when there was more (strict: nothing kept,
 * lenient: the text so far). `text` is undefined when strict decoding met a byte that is not
 * UTF-8. The signal cancels the stream, for a fetch that ignores its own.
 */
async function readUpTo(response: Response, maxBytes: number, strict: boolean, signal: AbortSignal): Promise<{ text?: string; over: boolean }> {
  const body = response.body;
  if (body === null) return { text: '', over: false };
  const reader = body.getReader();
  const stop = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder('utf-8', { fatal: strict });
  const parts: string[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      const over = total > maxBytes;
      if (over && strict) {
        stop();
        return { over };
      }
      const kept = over ? value.subarray(0, value.byteLength - (total - maxBytes)) : value;
      const text = decoded(decoder, kept, true);
      if (text === undefined || over) {
        stop();
        return text === undefined ? { over } : { text: parts.join('') + text, over };
      }
      parts.push(text);
    }
    const rest = decoded(decoder, undefined, false);
    return rest === undefined ? { over: false } : { text: parts.join('') + rest, over: false };
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** The chunk's text, or undefined when a strict decoder refused it. */
function decoded(decoder: TextDecoder, chunk: Uint8Array | undefined, stream: boolean): string | undefined {
  try {
    return decoder.decode(chunk, { stream });
  } catch {
    return undefined;
  }
}
