/**
 * Reads a `u`-flag pattern into a tree (tree.ts). Native RegExp judges the syntax first, so
 * this reader trusts that the pattern is well formed and stays small; what it refuses on its
 * own is what it understands but a linear-time matcher cannot run: backreferences,
 * lookaround, inline modifiers, and programs past MAX_PATTERN_STATES.
 *
 * Open groups live on an explicit stack rather than the call stack, and sizes are tallied as
 * terms arrive, so one left-to-right pass does it all: no rescans, no recursion.
 */
import { indexAfter, readEscape } from './escapes.js';
import { ANY, PatternUnsupportedError, admitSize, assertion, char, charClass, choice, repeat, sequence } from './tree.js';
import type { Node } from './tree.js';
import { MAX_PATTERN_STATES } from '../limits.js';

/**
 * Deepest group nesting accepted. Building the program walks the tree recursively, and this
 * keeps that walk far from any runtime's stack limit; real patterns nest a handful deep.
 */
const MAX_GROUP_DEPTH = 500;

const SHORT_QUANTIFIERS: Readonly<Record<string, readonly [number, number]>> = {
  '*': [0, Infinity],
  '+': [1, Infinity],
  '?': [0, 1],
};

/** A group being read: its finished options, and the terms of the one in progress. */
interface OpenGroup {
  readonly options: Node[];
  terms: Node[];
  /** Instructions so far, forks between options included: a floor on the group's size. */
  size: number;
}

export function parse(source: string): Node {
  try {
    new RegExp(source, 'u');
  } catch {
    throw new PatternUnsupportedError('is not a valid u-flag regular expression');
  }
  return new Reader(source).read();
}

class Reader {
  private at = 0;
  private group: OpenGroup = { options: [], terms: [], size: 0 };
  private readonly outer: OpenGroup[] = [];

  constructor(private readonly source: string) {}

  read(): Node {
    while (this.at < this.source.length) {
      const atom = this.token();
      if (atom !== undefined) this.add(this.quantified(atom));
    }
    const root = this.finish();
    admitSize(root.size + 1); // the final MATCH instruction
    return root;
  }

  /** Reads one token; returns it when it is an atom a quantifier may follow. */
  private token(): Node | undefined {
    const { source } = this;
    switch (source[this.at]) {
      case '|':
        this.at += 1;
        this.group.options.push(sequence(this.group.terms));
        this.group.terms = [];
        this.group.size = admitSize(this.group.size + 2);
        return undefined;
      case '(':
        this.open();
        return undefined;
      case ')': {
        this.at += 1;
        const node = this.finish();
        const parent = this.outer.pop();
        if (parent === undefined) throw new PatternUnsupportedError('has an unbalanced parenthesis');
        this.group = parent;
        return node;
      }
      case '^':
      case '$':
        this.add(assertion(source[this.at] === '^' ? 'begin' : 'end'));
        this.at += 1;
        return undefined;
      case '.':
        this.at += 1;
        return ANY;
      case '[':
        return this.characterClass();
      case '\\': {
        const { node, end } = readEscape(source, this.at);
        this.at = end;
        if (node.kind !== 'assert') return node;
        this.add(node);
        return undefined;
      }
      default: {
        const codePoint = source.codePointAt(this.at) ?? 0;
        this.at += codePoint > 0xffff ? 2 : 1;
        return char(codePoint);
      }
    }
  }

  private open(): void {
    const { source } = this;
    const kind = source[this.at + 1] === '?' ? source.slice(this.at + 2, this.at + 4) : '';
    const refused = unsupportedGroup(kind);
    if (refused !== undefined) throw new PatternUnsupportedError(`uses ${refused}, which is not supported`);
    if (kind === '') this.at += 1;
    else if (kind.startsWith(':')) this.at += 3;
    else this.at = indexAfter(source, '>', this.at); // a named group: the name is irrelevant
    const depth = this.outer.length;
    if (depth >= MAX_GROUP_DEPTH) throw new PatternUnsupportedError(`nests groups over ${MAX_GROUP_DEPTH} deep`);
    this.outer.push(this.group);
    this.group = { options: [], terms: [], size: 0 };
  }

  /** Closes the current group (or the whole pattern) into one node. */
  private finish(): Node {
    const { options, terms } = this.group;
    options.push(sequence(terms));
    return choice(options);
  }

  private add(term: Node): void {
    if (term.size === 0) return; // emits nothing, and would only hide a leading `^`
    this.group.terms.push(term);
    this.group.size = admitSize(this.group.size + term.size);
  }

  /** `[…]` as it stands: native RegExp will judge each character against this exact text. */
  private characterClass(): Node {
    const { source } = this;
    let end = this.at + 1;
    while (end < source.length && source[end] !== ']') end += source[end] === '\\' ? 2 : 1;
    if (end >= source.length) throw new PatternUnsupportedError('has an unterminated character class');
    const node = charClass(source.slice(this.at, end + 1));
    this.at = end + 1;
    return node;
  }

  private quantified(atom: Node): Node {
    const quantifier = this.source[this.at] ?? '';
    const bounds = quantifier === '{' ? this.braces() : SHORT_QUANTIFIERS[quantifier];
    if (bounds === undefined) return atom;
    if (quantifier !== '{') this.at += 1;
    if (this.source[this.at] === '?') this.at += 1; // lazy: the same strings match either way
    return repeat(atom, bounds[0], bounds[1]);
  }

  /** `{n}`, `{n,}` or `{n,m}`. */
  private braces(): [number, number] {
    this.at += 1;
    const min = this.count();
    let max = min;
    if (this.source[this.at] === ',') {
      this.at += 1;
      max = this.source[this.at] === '}' ? Infinity : this.count();
    }
    this.at += 1;
    return [min, max];
  }

  /**
   * A decimal count, saturated just past MAX_PATTERN_STATES: any larger count of a non-empty
   * body is refused anyway, and saturating keeps a count of 400 digits a finite number.
   */
  private count(): number {
    let value = 0;
    for (;;) {
      const digit = this.source.charCodeAt(this.at) - 48;
      if (!(digit >= 0 && digit <= 9)) return value;
      value = Math.min(value * 10 + digit, MAX_PATTERN_STATES + 1);
      this.at += 1;
    }
  }
}

/** What a group opener `(?…` is when it is not a group this matcher runs; `kind` follows `(?`. */
function unsupportedGroup(kind: string): string | undefined {
  if (kind === '<=' || kind === '<!') return 'lookbehind';
  if (kind.startsWith('=') || kind.startsWith('!')) return 'lookahead';
  if (kind !== '' && !kind.startsWith(':') && !kind.startsWith('<')) return 'an inline modifier group';
  return undefined;
}
