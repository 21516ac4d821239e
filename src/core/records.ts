/**
 * The one test for "a JSON object" that config validation, result checks, schema walks and
 * approval answers share: an object that is neither null nor an array. Its prototype is not
 * checked here; code that must refuse class instances says so where it matters.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
