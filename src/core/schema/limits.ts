/**
 * The documented limits of the validator subset. They exist so that a schema or an argument
 * from across a trust boundary cannot make admission or validation unbounded.
 */

/** Deepest JSON nesting (objects and arrays) a tool schema may have. */
export const MAX_SCHEMA_DEPTH = 100;

/** Values in one tool schema: past it, admission refuses before walking it any further. */
export const MAX_SCHEMA_VALUES = 1_000_000;

/** Deepest JSON nesting of arguments or structured output that is validated at all. */
export const MAX_INSTANCE_DEPTH = 200;

/** Validation issues named in one error result: enough to act on, never a flood. */
export const MAX_REPORTED_ISSUES = 8;

/** Evaluations of one value a schema may cost through $ref/allOf/anyOf/… before descending. */
export const MAX_SCHEMA_FANOUT = 10_000;

/** Values (objects, arrays, scalars) in one validated argument or output. */
export const MAX_INSTANCE_NODES = 200_000;

/*
 * The work allowance (see budget.ts), calibrated by measurement (bench/validation.bench.ts
 * and the shapes of issue 8) on a 2-core machine: the slowest shapes found spend about 20 ns
 * per unit (the pattern engine on many-state patterns, canonical keys of many small objects,
 * $ref chains nested hundreds deep); everything else 5-15 ns. So the largest allowance stops
 * in about 300 ms, and the smallest (any value at all) in about 20 ms. Honest validations
 * spend 2-10 units per value: a 10-property tool call about 70.
 */

/** Work units any validation may spend, whatever the size of the value. */
export const VALIDATION_BASE_WORK = 1_000_000;

/** Further units per unit of value size (a value, or one character of a string or key). */
export const VALIDATION_WORK_PER_UNIT = 64;

/** The most work one validation pass may ever spend, however large the value. */
export const VALIDATION_MAX_WORK = 15_000_000;

/**
 * Instructions one compiled `pattern` may expand to once counted repetition is written out
 * (`a{3}` is three). Matching costs at most this many steps per character of the string.
 */
export const MAX_PATTERN_STATES = 10_000;

/**
 * Distinct character classes one pattern may use. Each is a native RegExp built at admission
 * (~80 µs for a `\p{…}` class), so this caps what compiling one pattern can cost.
 */
export const MAX_PATTERN_CLASSES = 256;

/**
 * What all the distinct patterns of one schema may add up to, in instructions and in
 * classes: a compiled pattern keeps ~20 bytes per instruction for the validator's life, and
 * a few hundred bytes of schema can name thousands of patterns near MAX_PATTERN_STATES.
 */
export const MAX_SCHEMA_PATTERN_STATES = 50_000;
export const MAX_SCHEMA_PATTERN_CLASSES = 1_000;
