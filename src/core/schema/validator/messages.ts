/**
 * How issue messages speak about values. A message goes to a model as part of an error
 * result, and both the schema and the value come from across a trust boundary, so a message
 * never embeds an enum, a constant or an instance wholesale: a 1,400-member enum is "one of
 * the 1400 allowed values", a megabyte string is "a string of 1048576 characters". Short
 * scalars (at most SHORT characters) are quoted, because naming them is what helps a model
 * correct itself.
 */

/** The longest message one issue carries. */
const MAX_MESSAGE = 160;

/** The longest scalar quoted verbatim. */
const SHORT = 40;

export function capMessage(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…`;
}

/** A string as a message shows it: quoted when short, cut and marked when not. */
export function quote(text: string): string {
  return text.length <= SHORT ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, SHORT))}…`;
}

/** Whether a value is a scalar short enough to name in a message. */
export function isShortScalar(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= SHORT;
  return value === null || typeof value === 'boolean' || typeof value === 'number';
}

/** A value as a message mentions it: short scalars verbatim, everything else by its shape. */
export function describe(value: unknown): string {
  if (isShortScalar(value)) return JSON.stringify(value);
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  return 'an object';
}

/** "1 property", "2 properties": counts in messages read as English. */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
