/**
 * What a server's tool schemas may cost before they are imported, when the host declared
 * maxSchemaBytes: their nesting, then their size, refused as `schema.*` from tools() itself,
 * naming the tool. The nesting check comes first and never recurses, so
 * nothing measured after it (here or at admission) meets a value deeper than the validator's
 * limit, and a schema nested 100,000 deep is a typed refusal rather than a stack overflow.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../errors.js';
import { schemaBytes } from '../schema/byte-size.js';
import { MAX_SCHEMA_DEPTH } from '../schema/limits.js';
import { quoteName } from '../tools/names.js';
import { MAX_MESSAGE_BYTES } from './body-limit.js';

export function assertSchemaBounds(wire: Tool, sourceId: string, maxSchemaBytes: number | undefined): void {
  // Without a byte cap nothing is measured here: admission (at resolveToolset) checks the
  // nesting first anyway, and a walk of every schema on every sweep costs 1.5 µs a tool.
  if (maxSchemaBytes === undefined) return;
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    if (nestsDeeperThan(wire[key], MAX_SCHEMA_DEPTH)) {
      throw new ConfigError(
        'schema.unsupported',
        `${sourceId}: tool ${quoteName(wire.name)} ${key} at (root): nests deeper than ${MAX_SCHEMA_DEPTH} levels`,
      );
    }
  }
  // Exact for anything one wire message can carry; only an in-process server's graph of
  // shared subobjects can serialize to more, and counting that stops here.
  const ceiling = Math.max(maxSchemaBytes, MAX_MESSAGE_BYTES);
  const bytes = schemaBytes(wire.inputSchema, wire.outputSchema, ceiling);
  if (bytes > maxSchemaBytes) {
    const measured = bytes > ceiling ? `more than ${ceiling}` : String(bytes);
    throw new ConfigError(
      'schema.too_large',
      `${sourceId}: tool ${quoteName(wire.name)} has ${measured} bytes of schema, past maxSchemaBytes = ${maxSchemaBytes}`,
    );
  }
}

/**
 * Whether objects and arrays nest deeper than `limit` (the root object is level 1, as in
 * admission's measure()). Each object records the deepest level it was reached at and is
 * walked again only when reached deeper: an in-process server's shared subobjects cost at
 * most `limit` walks each, and a cyclic one climbs past the limit instead of looping.
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const deepest = new Map<object, number>();
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, level] = pending.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (level > limit) return true;
    if ((deepest.get(node) ?? 0) >= level) continue;
    deepest.set(node, level);
    // Object.values for arrays too: it skips the holes of a sparse one, however long.
    for (const child of Object.values(node)) pending.push([child, level + 1]);
  }
  return false;
}
