/**
 * What `tool()` accepts as a schema: bare JSON Schema, a zod schema (v3 or v4), or any
 * Standard Schema that can describe itself as JSON Schema (`~standard.jsonSchema`). All of
 * them become JSON Schema here, so one eval-free validator checks every tool the same way;
 * a zod schema's own `parse` (which may JIT-compile with `new Function`) is never used.
 */
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../tools/types.js';

/** The Standard JSON Schema capability (standardschema.dev), as far as this code needs it. */
export interface StandardJsonSchemaCarrier {
  readonly '~standard': {
    readonly jsonSchema: { input(options: { readonly target: 'draft-2020-12' }): Record<string, unknown> };
  };
}

/** A zod schema of either major version, recognised by its internals, not by import. */
export interface ZodLike {
  readonly _def?: unknown;
  readonly _zod?: unknown;
}

export type SchemaSpec = JsonSchema | StandardJsonSchemaCarrier | ZodLike;

export function toJsonSchema(spec: SchemaSpec, where: string): JsonSchema {
  if (typeof spec === 'boolean') return spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new ConfigError('config.invalid_value', `${where} must be a JSON Schema object, a zod schema or a Standard Schema`);
  }
  const standard = (spec as Partial<StandardJsonSchemaCarrier>)['~standard'];
  if (standard !== undefined && typeof standard.jsonSchema?.input === 'function') {
    return standard.jsonSchema.input({ target: 'draft-2020-12' });
  }
  if ('_zod' in spec || ('_def' in spec && typeof (spec as { safeParse?: unknown }).safeParse === 'function')) {
    const converted = toJsonSchemaCompat(spec as Parameters<typeof toJsonSchemaCompat>[0], { target: 'draft-2020-12' });
    return converted as JsonSchema;
  }
  if (standard !== undefined) {
    throw new ConfigError(
      'config.invalid_value',
      `${where} is a Standard Schema that cannot describe itself as JSON Schema; pass JSON Schema or a zod schema`,
    );
  }
  return spec as JsonSchema;
}
