/**
 * Which characters a class accepts. `[…]`, `\d`, `\s`, `\p{…}` and the rest are left to
 * native RegExp, compiled from the class's exact text: that is the one way to agree with
 * native on every Unicode property and case, in every runtime, without shipping tables. A
 * single class can only ever match one character, so native has nothing to backtrack over
 * and each check is constant time; it runs sticky at the character's own index in the
 * string, so nothing is allocated to ask. Answers are cached per class.
 */

/** Entries remembered for characters past ASCII before the cache starts over. */
const WIDE_CACHE_SIZE = 256;

const UNKNOWN = 0;
const INSIDE = 1;
const OUTSIDE = 2;

export class CharClass {
  private readonly probe: RegExp;
  /** UNKNOWN, INSIDE or OUTSIDE for each ASCII character: most text is ASCII. */
  private readonly ascii = new Int8Array(128);
  private readonly wide = new Map<number, boolean>();

  constructor(text: string) {
    this.probe = new RegExp(text, 'uy');
  }

  /** Whether the class accepts `codePoint`, which starts at index `at` of `text`. */
  has(codePoint: number, text: string, at: number): boolean {
    if (codePoint < 128) {
      const known = this.ascii[codePoint];
      if (known !== UNKNOWN) return known === INSIDE;
      const inside = this.ask(text, at);
      this.ascii[codePoint] = inside ? INSIDE : OUTSIDE;
      return inside;
    }
    const known = this.wide.get(codePoint);
    if (known !== undefined) return known;
    const inside = this.ask(text, at);
    // Bounded so text of many distinct characters cannot grow it: start over, a miss is cheap.
    if (this.wide.size >= WIDE_CACHE_SIZE) this.wide.clear();
    this.wide.set(codePoint, inside);
    return inside;
  }

  private ask(text: string, at: number): boolean {
    this.probe.lastIndex = at;
    return this.probe.test(text);
  }
}

/** What `.` refuses without the `s` flag. */
export function isLineTerminator(codePoint: number): boolean {
  return codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x2028 || codePoint === 0x2029;
}

/**
 * Whether a word boundary (`\b`) lies at index `at`. With `u` but no `i`, word characters
 * are exactly ASCII letters, digits and `_`, so code units suffice: no half of a surrogate
 * pair is one.
 */
export function isBoundary(text: string, at: number): boolean {
  return isWordUnit(text.charCodeAt(at - 1)) !== isWordUnit(text.charCodeAt(at));
}

/** Out-of-range reads give NaN, which is no word character: the ends of the text. */
function isWordUnit(unit: number): boolean {
  return (
    (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x5f
  );
}
