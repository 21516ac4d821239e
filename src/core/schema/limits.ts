/**
 * The documented limits of the validator subset. They exist so that a schema or an argument
 * from across a trust boundary cannot make admission or validation unbounded.
 */

/** Deepest JSON nesting (objects and arrays) a tool schema may have. */
export const MAX_SCHEMA_DEPTH = 100;

/** Deepest JSON nesting of arguments or structured output that is validated at all. */
export const MAX_INSTANCE_DEPTH = 200;

/** Validation issues named in one error result; the rest are counted, not listed. */
export const MAX_REPORTED_ISSUES = 20;

/** Evaluations of one value a schema may cost through $ref/allOf/anyOf/… before descending. */
export const MAX_SCHEMA_FANOUT = 10_000;

/** Values (objects, arrays, scalars) in one validated argument or output. */
export const MAX_INSTANCE_NODES = 200_000;

/** Items of an array checked by `uniqueItems`, which compares every pair. */
export const MAX_UNIQUE_ITEMS = 5_000;

/** Work units any validation may spend, whatever the size of the value (see budget.ts). */
export const VALIDATION_BASE_WORK = 1_000_000;

/** Further units per unit of value size (a value, or one character of a string or key). */
export const VALIDATION_WORK_PER_UNIT = 64;

/** The most work one validation may ever spend, however large the value. */
export const VALIDATION_MAX_WORK = 40_000_000;
