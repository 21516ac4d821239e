/** The --stdio splitter: shell-like quoting, and nothing a shell would expand. */
import { describe, expect, it } from 'vitest';
import { CliExit, EXIT } from '../../src/cli/exit.js';
import { tokenize } from '../../src/cli/tokenize.js';

describe('tokenize (--stdio)', () => {
  it('splits on runs of whitespace and keeps quoted whitespace', () => {
    expect(tokenize('  node   --import\ttsx \n a.ts ')).toEqual(['node', '--import', 'tsx', 'a.ts']);
    expect(tokenize(`cmd 'two words' "and \\"three\\" here" mixed'a b'"c"`)).toEqual(['cmd', 'two words', 'and "three" here', 'mixeda bc']);
  });

  it('keeps empty quoted words, escapes outside quotes, and literal backslashes inside single quotes', () => {
    expect(tokenize(`a '' "" b`)).toEqual(['a', '', '', 'b']);
    expect(tokenize('a\\ b c\\"d')).toEqual(['a b', 'c"d']);
    expect(tokenize(`'a\\b' "a\\b" "a\\\\b"`)).toEqual(['a\\b', 'a\\b', 'a\\b']);
  });

  it('expands nothing', () => {
    expect(tokenize('echo $HOME * | cat > out')).toEqual(['echo', '$HOME', '*', '|', 'cat', '>', 'out']);
  });

  it('refuses an unterminated quote or a trailing backslash as a usage error', () => {
    for (const line of [`a 'b`, 'a "b', 'a\\']) {
      expect(() => tokenize(line)).toThrow(CliExit);
      try {
        tokenize(line);
      } catch (error) {
        expect((error as CliExit).exitCode).toBe(EXIT.usage);
      }
    }
  });
});
