/**
 * A guard against the classic catastrophic-backtracking patterns (`(a+)+`, `(\w+\s?)*`,
 * `(x*y*)+`): a repeated group whose every element is itself repeatable can match one string
 * in exponentially many ways, and a RegExp test is synchronous, so no timer could stop it.
 * The check is a heuristic on purpose: it refuses a repeated group only when nothing in it
 * is matched exactly once, which keeps common safe shapes like `(\d+\.)*` or `([a-z]+-)+`.
 */

interface Group {
  /** Every element of the current alternative carries a quantifier (or is itself variable). */
  allQuantified: boolean;
  hasElement: boolean;
  /** Some finished alternative was made only of variable elements. */
  variableAlternative: boolean;
  /** Something inside (at any depth) repeats. */
  repeats: boolean;
}

const REPEAT = /^(?:[*+]|\{\d+,\d*\})/;
const QUANTIFIER = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/;
const freshGroup = (): Group => ({ allQuantified: true, hasElement: false, variableAlternative: false, repeats: false });
/** Ends the current alternative of `group`, remembering whether it was all variable. */
const endAlternative = (group: Group): void => {
  group.variableAlternative ||= group.hasElement && group.allQuantified;
  group.allQuantified = true;
  group.hasElement = false;
};

/** True when `pattern` contains a repeated group with an alternative made only of repeatable elements. */
export function hasNestedRepetition(pattern: string): boolean {
  const stack: Group[] = [freshGroup()];
  let i = 0;
  // After each element, look at what follows it: a quantifier, a repeat, or nothing.
  const quantify = (top: Group, element: { repeats: boolean; variable: boolean; isGroup: boolean }): boolean => {
    const quantifier = QUANTIFIER.exec(pattern.slice(i, i + 32))?.[0];
    const repeated = quantifier !== undefined && REPEAT.test(quantifier);
    if (repeated && element.isGroup && element.repeats && element.variable) return true;
    if (quantifier !== undefined) i += quantifier.length;
    top.hasElement = true;
    top.allQuantified &&= quantifier !== undefined || element.variable;
    top.repeats ||= repeated || element.repeats;
    return false;
  };
  while (i < pattern.length) {
    const top = stack[stack.length - 1] as Group;
    const char = pattern[i] as string;
    if (char === '(') {
      i += pattern.startsWith('(?', i) ? lookaroundPrefix(pattern, i) : 1;
      stack.push(freshGroup());
      continue;
    }
    if (char === ')' && stack.length > 1) {
      const group = stack.pop() as Group;
      endAlternative(group);
      i += 1;
      const parent = stack[stack.length - 1] as Group;
      const element = { repeats: group.repeats, variable: group.variableAlternative && group.repeats, isGroup: true };
      if (quantify(parent, element)) return true;
      continue;
    }
    if (char === '|') {
      endAlternative(top);
      i += 1;
      continue;
    }
    i += atomLength(pattern, i);
    if (quantify(top, { repeats: false, variable: false, isGroup: false })) return true;
  }
  return false;
}

/** Length of `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`. */
function lookaroundPrefix(pattern: string, at: number): number {
  if (pattern.startsWith('(?<=', at) || pattern.startsWith('(?<!', at)) return 4;
  if (pattern.startsWith('(?<', at)) {
    const close = pattern.indexOf('>', at);
    return close === -1 ? 3 : close - at + 1;
  }
  return 3;
}

/** One atom: an escape, a character class, or a single character. */
function atomLength(pattern: string, at: number): number {
  const char = pattern[at];
  if (char === '\\') {
    const next = pattern[at + 1];
    if (next === 'u' && pattern[at + 2] === '{') return pattern.indexOf('}', at) - at + 1 || 2;
    if (next === 'p' || next === 'P') return pattern[at + 2] === '{' ? pattern.indexOf('}', at) - at + 1 || 2 : 2;
    if (next === 'u') return 6;
    if (next === 'x') return 4;
    return 2;
  }
  if (char === '[') {
    let j = at + 1;
    while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
    return j - at + 1;
  }
  return 1;
}
