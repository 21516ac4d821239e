/**
 * Byte chunks joined into one array: what a line or an event that arrived in several reads
 * (SSE from a provider, a journal file's line) becomes before it is decoded whole.
 */

/** `parts` copied end to end; `length` is their total when the caller already counted it. */
export function joinBytes(parts: readonly Uint8Array[], length = totalLength(parts)): Uint8Array {
  const whole = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return whole;
}

function totalLength(parts: readonly Uint8Array[]): number {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  return length;
}
