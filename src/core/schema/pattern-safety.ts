/**
 * A guard against catastrophic backtracking in patterns a server declares: a RegExp test is
 * synchronous, so an exponential one would freeze the host past every timer. A heuristic on
 * purpose (deciding this exactly needs an automaton), aimed at the shapes that blow up: a
 * repeated group (`*`, `+`, `{n,}`, `{n}` with n ≥ 2) in which
 *   - two alternatives can start with the same character: `(a|aa)+`, `(\w|\d)+`; or
 *   - a variable element can be followed, within the group or in the next round, by
 *     something that matches the same character: `(a+)+`, `(\w+\s?)*`, `(.*a){20}`,
 *     `(x*y*)+`, `(a[^b]*)*`.
 * Safe shapes pass: `(\d+\.)*`, `([a-z]+-)+`, `(\s+\S+)*`, `(foo|bar)+`. Adjacent quantifiers
 * outside groups (`.*.*x`) are polynomial, not exponential, and are not refused.
 */

interface Quantifier {
  readonly min: number;
  readonly max: number;
}
interface Element {
  readonly atom?: string; // an escape, a class, or one character
  readonly group?: Alternative[];
  readonly quantifier?: Quantifier;
}
type Alternative = Element[];

const MAX_GROUP_DEPTH = 50;
/** Characters a class is probed with to see whether two elements can match the same one. */
const PROBES = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', 'é', 'Ж', '中', '😀'];

/** True when `pattern` has a repeated group shaped for exponential backtracking. */
export function hasNestedRepetition(pattern: string): boolean {
  const parsed = parse(pattern);
  return parsed === 'too-deep' || alternativesDangerous(parsed);
}

function alternativesDangerous(alternatives: Alternative[]): boolean {
  for (const alternative of alternatives) {
    for (const element of alternative) {
      if (element.group === undefined) continue;
      if (repeats(element.quantifier) && groupDangerous(element.group)) return true;
      if (alternativesDangerous(element.group)) return true;
    }
  }
  return false;
}

function groupDangerous(alternatives: Alternative[]): boolean {
  const starts = alternatives.map((alternative) => firstChars(alternative));
  for (let i = 0; i < starts.length; i += 1) {
    for (let j = i + 1; j < starts.length; j += 1) if (overlap(starts[i] as Set<string>, starts[j] as Set<string>)) return true;
  }
  return alternatives.some((alternative) =>
    alternative.some((element, index) => varies(element) && overlap(chars(element), successorChars(alternative, index))),
  );
}

/** What can come right after element `index`: the next required element, wrapping round. */
function successorChars(alternative: Alternative, index: number): Set<string> {
  const found = new Set<string>();
  for (let step = 1; step <= alternative.length; step += 1) {
    const next = alternative[(index + step) % alternative.length] as Element;
    for (const c of chars(next)) found.add(c);
    if ((next.quantifier?.min ?? 1) > 0) break;
  }
  return found;
}

function firstChars(alternative: Alternative): Set<string> {
  const found = new Set<string>();
  for (const element of alternative) {
    for (const c of chars(element)) found.add(c);
    if ((element.quantifier?.min ?? 1) > 0) break;
  }
  return found;
}

function chars(element: Element): Set<string> {
  if (element.group !== undefined) {
    const union = new Set<string>();
    for (const alternative of element.group) for (const c of firstChars(alternative)) union.add(c);
    return union;
  }
  const probe = safeRegExp(`^(?:${element.atom ?? ''})$`);
  return new Set(probe === undefined ? PROBES : PROBES.filter((c) => probe.test(c)));
}

const varies = (element: Element): boolean =>
  (element.quantifier !== undefined && element.quantifier.min !== element.quantifier.max) ||
  (element.group !== undefined && element.group.some((alternative) => alternative.some(varies)));
const repeats = (q: Quantifier | undefined): boolean => q !== undefined && q.max > 1;
const overlap = (a: Set<string>, b: Set<string>): boolean => [...a].some((c) => b.has(c));

function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    return undefined;
  }
}

/** Groups, alternatives, atoms and quantifiers; lookarounds and anchors count as atoms. */
function parse(pattern: string): Alternative[] | 'too-deep' {
  const stack: Alternative[][] = [[[]]];
  let i = 0;
  const current = () => stack[stack.length - 1] as Alternative[];
  const push = (element: Element) => (current()[current().length - 1] as Alternative).push(element);
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (char === '(') {
      if (stack.length > MAX_GROUP_DEPTH) return 'too-deep';
      i += prefixLength(pattern, i);
      stack.push([[]]);
    } else if (char === ')' && stack.length > 1) {
      const group = stack.pop() as Alternative[];
      i += 1;
      const quantifier = readQuantifier(pattern, i);
      i += quantifier?.length ?? 0;
      push(quantifier === undefined ? { group } : { group, quantifier: quantifier.value });
    } else if (char === '|') {
      current().push([]);
      i += 1;
    } else {
      const length = atomLength(pattern, i);
      const atom = pattern.slice(i, i + length);
      i += length;
      const quantifier = readQuantifier(pattern, i);
      i += quantifier?.length ?? 0;
      push(quantifier === undefined ? { atom } : { atom, quantifier: quantifier.value });
    }
  }
  return stack[0] as Alternative[];
}

function readQuantifier(pattern: string, at: number): { value: Quantifier; length: number } | undefined {
  const match = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(pattern.slice(at, at + 24));
  if (match === null) return undefined;
  const [text, symbol, min, comma, max] = match;
  const value =
    symbol === '*' ? { min: 0, max: Infinity }
    : symbol === '+' ? { min: 1, max: Infinity }
    : symbol === '?' ? { min: 0, max: 1 }
    : { min: Number(min), max: comma === undefined ? Number(min) : max === '' ? Infinity : Number(max) };
  return { value, length: text.length };
}

/** `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`. */
function prefixLength(pattern: string, at: number): number {
  if (!pattern.startsWith('(?', at)) return 1;
  if (pattern.startsWith('(?<=', at) || pattern.startsWith('(?<!', at)) return 4;
  if (pattern.startsWith('(?<', at)) {
    const close = pattern.indexOf('>', at);
    return close === -1 ? 3 : close - at + 1;
  }
  return 3;
}

/** One atom: an escape, a character class, or a single character (a whole code point). */
function atomLength(pattern: string, at: number): number {
  const char = pattern[at];
  if (char === '\\') {
    const next = pattern[at + 1];
    const braced = (next === 'u' || next === 'p' || next === 'P') && pattern[at + 2] === '{';
    if (braced) return Math.max(pattern.indexOf('}', at) - at + 1, 2);
    if (next === 'u') return 6;
    if (next === 'x') return 4;
    if (next === 'c') return 3;
    return 2;
  }
  if (char === '[') {
    let j = at + 1;
    while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
    return j - at + 1;
  }
  return (pattern.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
}
