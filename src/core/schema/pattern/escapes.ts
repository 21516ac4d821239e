/**
 * Backslash escapes outside character classes, as the `u` flag reads them. Native RegExp has
 * already accepted the whole pattern, so every escape here is well formed: the reader only
 * has to tell the kinds apart, decode the ones that stand for one character, and refuse the
 * backreferences, which no finite automaton can match.
 */
import { PatternUnsupportedError, assertion, char, charClass, type Node } from './tree.js';

export interface Read {
  readonly node: Node;
  /** Index just past what was read. */
  readonly end: number;
}

const CONTROL: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d, '0': 0x00 };

/** Reads the escape whose backslash is at `at`. */
export function readEscape(source: string, at: number): Read {
  const letter = source[at + 1] ?? '';
  switch (letter) {
    case 'b':
      return { node: assertion('boundary'), end: at + 2 };
    case 'B':
      return { node: assertion('non-boundary'), end: at + 2 };
    case 'd':
    case 'D':
    case 's':
    case 'S':
    case 'w':
    case 'W':
      return { node: charClass(source.slice(at, at + 2)), end: at + 2 };
    case 'p':
    case 'P': {
      const end = indexAfter(source, '}', at);
      return { node: charClass(source.slice(at, end)), end };
    }
    case 'k':
      throw new PatternUnsupportedError('uses a named backreference (\\k<name>), which is not supported');
    default:
      if (letter >= '1' && letter <= '9') {
        throw new PatternUnsupportedError(`uses a backreference (\\${letter}), which is not supported`);
      }
      return readCharacter(source, at + 1);
  }
}

/** One escaped character; `at` is just past the backslash. */
function readCharacter(source: string, at: number): Read {
  const letter = source[at] ?? '';
  const control = CONTROL[letter];
  if (control !== undefined) return { node: char(control), end: at + 1 };
  switch (letter) {
    case 'c':
      return { node: char(source.charCodeAt(at + 1) % 32), end: at + 2 };
    case 'x':
      return { node: char(hex(source, at + 1, at + 3)), end: at + 3 };
    case 'u':
      return readUnicode(source, at);
    default: {
      // An identity escape: a syntax character or `/` standing for itself.
      const codePoint = source.codePointAt(at) ?? 0;
      return { node: char(codePoint), end: at + (codePoint > 0xffff ? 2 : 1) };
    }
  }
}

/**
 * `\u{…}`, `\uXXXX`, or, the `u` flag's special case, a lead and a trail surrogate written as
 * two `\uXXXX` escapes, which together stand for the one code point they encode.
 */
function readUnicode(source: string, at: number): Read {
  if (source[at + 1] === '{') {
    const end = indexAfter(source, '}', at);
    return { node: char(hex(source, at + 2, end - 1)), end };
  }
  const unit = hex(source, at + 1, at + 5);
  const pairsWithNext =
    unit >= 0xd800 && unit <= 0xdbff && source.startsWith('\\u', at + 5) && source[at + 7] !== '{';
  if (pairsWithNext) {
    const trail = hex(source, at + 7, at + 11);
    if (trail >= 0xdc00 && trail <= 0xdfff) {
      return { node: char(0x10000 + ((unit - 0xd800) << 10) + (trail - 0xdc00)), end: at + 11 };
    }
  }
  return { node: char(unit), end: at + 5 };
}

/**
 * Index just past the next `delimiter` from `at`. Native RegExp guarantees one is there; the
 * check keeps a disagreement between it and this reader from turning into an endless loop.
 */
export function indexAfter(source: string, delimiter: string, at: number): number {
  const found = source.indexOf(delimiter, at);
  if (found < 0) throw new PatternUnsupportedError(`is missing a closing ${delimiter}`);
  return found + 1;
}

function hex(source: string, from: number, to: number): number {
  return Number.parseInt(source.slice(from, to), 16);
}
