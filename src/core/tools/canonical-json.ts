/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation, the byte-exact form that toolset
 * hashes are computed over, so that the same toolset hashes the same in Node, workerd and
 * Chromium, whatever order its keys were written in.
 *
 * - Object members are sorted by their keys' UTF-16 code units (RFC 8785 section 3.2.3),
 *   which is what JS string comparison does; never localeCompare, which varies by locale.
 * - Numbers use ECMAScript's Number-to-String (section 3.2.2.3), which for finite numbers is
 *   exactly `String(n)`: `-0` becomes `0`, `1e21` stays `1e+21`, `0.1` stays `0.1`.
 *   NaN and the infinities have no JSON form and are refused.
 * - Strings are escaped as JSON.stringify does (section 3.2.2.2). One deliberate leniency:
 *   RFC 8785 expects I-JSON input, which forbids lone surrogates; rather than refuse a
 *   schema for one, it is written as JSON.stringify writes it (`\ud800`), which is still
 *   deterministic and cannot collide with a well-formed string.
 * - Only JSON values are accepted: null, booleans, finite numbers, strings, arrays and plain
 *   objects (any realm's). An object member whose value is `undefined` is absent, as with
 *   JSON.stringify and optional properties; `undefined` anywhere else, functions, symbols,
 *   bigints, class instances (Date, Map, …) and cycles are refused with a ConfigError
 *   (`json.invalid_value`) naming the path. Symbol-keyed and non-enumerable members are
 *   not part of JSON and are ignored.
 *
 * Two walks, one output. The fast one makes a private copy of the value with every object's
 * members inserted in canonical order, then lets JSON.stringify write it: the engine's own
 * writer, in whose output (for such a copy) only key order could differ from RFC 8785, and
 * that is settled by the copy. Each member is read once, as in the other walk, so a getter
 * cannot show the check one value and the writer another. It takes plain JSON nested at
 * most FAST_DEPTH levels without integer-like keys (which JS enumerates before all others,
 * whatever the insertion order) and gives up on anything else: too deep, a cycle (caught at
 * its first back edge), any value to refuse. Then the iterative walk with an explicit stack
 * runs from the start: its nesting is bounded by memory, not by the call stack (a hostile
 * schema nested 100,000 levels deep is serialised, not a RangeError), and it names the path
 * of whatever it refuses. Giving up costs at most one extra walk of what the fast path had
 * reached. Shared (non-cyclic) subtrees are written once per reference, as JSON has no
 * sharing; values parsed from JSON, which is all an MCP server can send, have none.
 */
import { ConfigError } from '../errors.js';

/** Orders strings by UTF-16 code units, the order RFC 8785 sorts object keys in. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Frame =
  | { readonly kind: 'array'; readonly value: readonly unknown[]; index: number }
  | {
      readonly kind: 'object';
      readonly value: object;
      readonly entries: ReadonlyArray<readonly [string, unknown]>;
      index: number;
    };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return true;
  // Object.prototype of another realm has a null prototype; class instances sit one level lower.
  return Object.getPrototypeOf(proto) === null;
}

/**
 * Recursion depth the fast path may reach: far below any runtime's stack (workerd and
 * browsers included), and above the nesting of any schema admission lets in (100) plus the
 * tuple around it.
 */
const FAST_DEPTH = 160;

/** Thrown by the fast path to hand over to the iterative walk; never escapes this module. */
const GIVE_UP: unique symbol = Symbol('canonical JSON: give up the fast path');

export function canonicalJson(value: unknown): string {
  const form = canonicalForm(value);
  return form === NO_FORM ? iterativeJson(value) : JSON.stringify(form);
}

/**
 * Whether JSON.stringify writes a canonical form as canonical JSON here: not if somebody
 * gave objects or arrays an inherited toJSON, which it would call and the RFC knows nothing of.
 */
export function stringifyIsCanonical(): boolean {
  return !Object.hasOwn(Object.prototype, 'toJSON') && !Object.hasOwn(Array.prototype, 'toJSON');
}

/** What canonicalForm gives for a value only the iterative walk can write (or refuse). */
export const NO_FORM: unique symbol = Symbol('no canonical form');

/**
 * A private copy of `value` that JSON.stringify writes as its canonical JSON, or NO_FORM.
 * Copies made elsewhere may be put together with these (toolset-hash.ts does, with
 * admission's) when they hold the same: plain JSON, every object's members in code-unit
 * order, no integer-like key, never changed afterwards.
 */
export function canonicalForm(value: unknown): unknown {
  // Nobody defines an inherited toJSON, but if somebody did, the slow walk, which ignores it, stays exact.
  if (!stringifyIsCanonical()) return NO_FORM;
  try {
    return canonicalCopy(value, []);
  } catch (thrown) {
    if (thrown !== GIVE_UP) throw thrown;
    return NO_FORM;
  }
}

/**
 * A copy of `v` whose objects hold their defined members in code-unit order. `open` holds
 * the objects and arrays being copied, outermost first: a scan of it catches a cycle at its
 * first back edge (were it only caught by depth, each unrolling would copy the cycle's other
 * members again, up to FAST_DEPTH times) and costs no allocation per object.
 */
function canonicalCopy(v: unknown, open: object[]): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      // JSON.stringify writes a finite number as Number::toString, the RFC's form, -0 as 0.
      if (!Number.isFinite(v)) throw GIVE_UP;
      return v;
    case 'object':
      break;
    default:
      throw GIVE_UP;
  }
  if (v === null) return null;
  const depth = open.length;
  if (depth >= FAST_DEPTH) throw GIVE_UP;
  for (let i = 0; i < depth; i += 1) if (open[i] === v) throw GIVE_UP;
  open.push(v);
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(v)) {
    copy = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i += 1) {
      const item: unknown = v[i];
      // JSON.stringify would write null for these; the canonical form refuses them.
      if (item === undefined) throw GIVE_UP;
      copy[i] = canonicalCopy(item, open);
    }
  } else {
    if (!isPlainObject(v)) throw GIVE_UP;
    copy = {};
    for (const key of sortedKeys(v)) {
      const member = (v as Record<string, unknown>)[key];
      if (member !== undefined) copy[key] = canonicalCopy(member, open);
    }
  }
  open.pop();
  return copy;
}

/**
 * Own enumerable string keys in code-unit order. Schemas have a handful of keys per object,
 * often already in order: an insertion sort in place is a pass that moves nothing then, and
 * is never worse than the generic sort below the cut-over. Gives up on an integer-like key
 * ("0", "17"): an object enumerates those first, in numeric order, so the copy could not
 * hold them in code-unit order; and on `__proto__`, which the copy could not hold as data.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57 && isIndexLike(key)) throw GIVE_UP; // '0'..'9'
    // Assigned on the copy, it would set the copy's prototype instead of a member.
    if (key === '__proto__') throw GIVE_UP;
  }
  if (keys.length > 16) return keys.sort(compareCodeUnits);
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j -= 1;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * Whether JS may order `key` as an array index (a decimal integer below 2^32 - 1). All
 * digits is a superset, which only sends a few more objects down the slow walk.
 */
function isIndexLike(key: string): boolean {
  return /^[0-9]+$/.test(key);
}

/** The walk that cannot run out of stack and names the path of what it refuses. */
function iterativeJson(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const active = new Set<object>();

  /** `$.parameters.properties["a b"][2]`: keys only, cut short, never values. */
  const path = (): string => {
    let text = '$';
    for (const frame of stack) {
      if (frame.kind === 'array') text += `[${frame.index - 1}]`;
      else {
        const key = frame.entries[frame.index - 1]?.[0] ?? '';
        const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
        text += IDENTIFIER.test(shown) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
      }
    }
    return text;
  };
  // Annotated (not inferred) so TypeScript treats a call to it as ending the branch.
  const refuse: (why: string) => never = (why) => {
    throw new ConfigError('json.invalid_value', `cannot write canonical JSON: ${path()} ${why}`);
  };

  const write = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        out.push(JSON.stringify(v));
        return;
      case 'number':
        if (!Number.isFinite(v)) refuse(`is ${String(v)}, which JSON cannot represent`);
        out.push(String(v));
        return;
      case 'boolean':
        out.push(v ? 'true' : 'false');
        return;
      case 'object':
        break;
      default:
        refuse(`is ${typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`}, which is not a JSON value`);
    }
    if (v === null) {
      out.push('null');
      return;
    }
    if (active.has(v)) refuse('refers back to an enclosing value (a cycle)');
    if (Array.isArray(v)) {
      active.add(v);
      out.push('[');
      stack.push({ kind: 'array', value: v, index: 0 });
      return;
    }
    if (!isPlainObject(v)) refuse('is a class instance, not a plain JSON object');
    const entries = Object.keys(v)
      .map((key) => [key, (v as Record<string, unknown>)[key]] as const)
      .filter(([, member]) => member !== undefined)
      .sort((a, b) => compareCodeUnits(a[0], b[0]));
    active.add(v);
    out.push('{');
    stack.push({ kind: 'object', value: v, entries, index: 0 });
  };

  write(value);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    const length = top.kind === 'array' ? top.value.length : top.entries.length;
    if (top.index >= length) {
      out.push(top.kind === 'array' ? ']' : '}');
      active.delete(top.value);
      stack.pop();
      continue;
    }
    if (top.index > 0) out.push(',');
    top.index += 1;
    if (top.kind === 'array') {
      write(top.value[top.index - 1]);
    } else {
      const [key, member] = top.entries[top.index - 1] ?? ['', undefined];
      out.push(JSON.stringify(key), ':');
      write(member);
    }
  }
  return out.join('');
}
