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

  it('a word made only of an escaped character is still a word', () => {
    expect(tokenize('\\a \\b')).toEqual(['a', 'b']);
    expect(tokenize('\\a')).toEqual(['a']);
  });

  it('refuses an unterminated quote or a trailing backslash as a usage error that says which', () => {
    const cases: [string, string][] = [
      [`a 'b`, '--stdio has an unterminated single quote'],
      ['a "b', '--stdio has an unterminated double quote'],
      [`a "b'`, '--stdio has an unterminated double quote'],
      ['a\\', '--stdio ends with a lone backslash'],
    ];
    for (const [line, message] of cases) {
      let thrown: unknown;
      try {
        tokenize(line);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CliExit);
      expect([(thrown as CliExit).exitCode, (thrown as CliExit).message, (thrown as CliExit).name]).toEqual([EXIT.usage, message, 'CliExit']);
    }
  });
});
