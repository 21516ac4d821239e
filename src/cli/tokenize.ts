/**
 * Splits `--stdio "cmd args"` into argv the way a POSIX shell would for plain quoting, without
 * running a shell: nothing is expanded (no $VAR, globs, pipes or redirections), so what the
 * user typed is exactly what is spawned.
 */
import { usageError } from './exit.js';

export function tokenize(line: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once any of its characters (or an empty pair of quotes) has been read.
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      // Inside double quotes a backslash escapes only what the shell lets it escape there.
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[(i += 1)];
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw usageError('--stdio ends with a lone backslash');
      word += line[(i += 1)];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (quote !== undefined) throw usageError(`--stdio has an unterminated ${quote === '"' ? 'double' : 'single'} quote`);
  if (started) words.push(word);
  return words;
}
