/**
 * The size of a schema as it travels: UTF-8 bytes of its JSON serialization. Counted from
 * the UTF-16 code units directly, so measuring a large schema allocates no byte buffer.
 */
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

/** Bytes of the serialized inputSchema plus the outputSchema when there is one. */
export function schemaBytes(inputSchema: unknown, outputSchema: unknown): number {
  const input = utf8Length(JSON.stringify(inputSchema) ?? '');
  return outputSchema === undefined ? input : input + utf8Length(JSON.stringify(outputSchema) ?? '');
}
