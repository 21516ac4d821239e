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
 * The walk is iterative with an explicit stack, so nesting depth is bounded by memory, not
 * by the call stack: a hostile schema nested 100,000 levels deep is serialised, not a
 * RangeError. Shared (non-cyclic) subtrees are written once per reference, as JSON has no
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
  // Object.prototype of any realm has a null prototype; class instances sit one level lower.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

export function canonicalJson(value: unknown): string {
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
