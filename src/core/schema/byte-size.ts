/**
 * The size of a schema as it travels: UTF-8 bytes of its JSON serialization. Counted without
 * serializing. JSON.stringify recurses, so a schema nested 100,000 deep would throw a
 * RangeError where a typed refusal belongs, and it builds the whole text just to measure it.
 * The counter here walks with its own stack and can stop as soon as a cap is passed.
 */

/** UTF-8 bytes of `text`, counted from the UTF-16 code units (no byte buffer is allocated). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair is one code point of four bytes; a lone surrogate becomes U+FFFD (3).
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * `utf8Length(JSON.stringify(value) ?? '')` for plain JSON, without recursion or the string.
 * Counting stops once the total passes `stopAfter`: the result is then some number above it,
 * and the work done is bounded by the cap rather than by the value (every value costs at
 * least one byte), which matters for an in-process server's object graph that shares
 * subobjects and would serialize to far more than it occupies.
 */
export function jsonByteLength(value: unknown, stopAfter = Number.POSITIVE_INFINITY): number {
  if (!serializable(value)) return 0;
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bytes <= stopAfter) {
    const node = pending.pop();
    if (typeof node === 'string') bytes += quotedLength(node);
    else if (typeof node === 'number') bytes += numberLength(node);
    else if (typeof node === 'boolean') bytes += node ? 4 : 5;
    else if (typeof node === 'bigint') bytes += String(node).length; // not JSON; admission refuses it later
    else if (typeof node !== 'object' || node === null) bytes += 4; // null, or an element JSON writes as null
    else if (Array.isArray(node)) {
      // Brackets and commas; the elements are counted as they come off the stack, unless the
      // commas alone are past the cap (a sparse array can be long and hold nothing).
      bytes += 2 + Math.max(0, node.length - 1);
      if (bytes > stopAfter) break;
      for (let i = node.length - 1; i >= 0; i -= 1) pending.push(node[i]);
    } else {
      let members = 0;
      for (const key of Object.keys(node)) {
        const member = (node as Record<string, unknown>)[key];
        // JSON leaves out members it cannot write (undefined, functions, symbols).
        if (!serializable(member)) continue;
        bytes += quotedLength(key) + 1; // "key":
        members += 1;
        pending.push(member);
      }
      bytes += 2 + Math.max(0, members - 1);
    }
  }
  return bytes;
}

/** Bytes of the serialized inputSchema plus the outputSchema when there is one. */
export function schemaBytes(inputSchema: unknown, outputSchema: unknown, stopAfter = Number.POSITIVE_INFINITY): number {
  const input = jsonByteLength(inputSchema, stopAfter);
  return outputSchema === undefined || input > stopAfter ? input : input + jsonByteLength(outputSchema, stopAfter - input);
}

/**
 * The length of a number as JSON writes it. An integer's digits are counted, not printed: a
 * result's ids and counts would otherwise each make a string on every call (the result cap).
 */
function numberLength(value: number): number {
  if (!Number.isFinite(value)) return 4; // NaN and Infinity are written as null
  if (!Number.isSafeInteger(value)) return String(value).length;
  let length = value < 0 ? 2 : 1; // -0 is written as 0
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) length += 1;
  return length;
}

/** What JSON.stringify writes at all: not undefined, functions or symbols. */
function serializable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** UTF-8 bytes of a string as JSON writes it: quoted, with its escapes. */
function quotedLength(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 || unit === 0x5c) bytes += 2; // \" and \\
    else if (unit < 0x20) bytes += SHORT_ESCAPES.has(unit) ? 2 : 6; // \n and friends, else \u00XX
    else if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4; // a pair: one code point, four bytes
        i += 1;
      } else bytes += 6; // a lone surrogate: JSON.stringify writes \uXXXX
    } else bytes += 3;
  }
  return bytes;
}

/** \b \t \n \f \r: the control characters JSON writes as two-character escapes. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
