/**
 * What reaches the terminal. Everything a server sends (tool names in messages, schema
 * pointers, error text, its stderr) is hostile: an ESC or C1 sequence moves the cursor, erases
 * lines, retitles the window or writes the clipboard (OSC 52), and a bidirectional override
 * makes a line read differently from what it holds. So every character that is not plain
 * visible text is shown escaped, and the only line breaks on stdout and stderr are the ones
 * the CLI writes itself.
 *
 * Escaped: every control character (C0, DEL, C1), every format character (bidirectional
 * embeddings, overrides and isolates, zero-width characters, the soft hyphen, tag
 * characters), the line and paragraph separators, lone surrogates, and the supplementary
 * variation selectors (U+E0100-E01EF), which render as nothing and can smuggle text.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u{E0100}-\u{E01EF}]/gu;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

/** One character as text: `\x1b`, `\x9b`, `\u202e`, `\u{e0041}`. */
function escaped(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\u{${hex(code, 5)}}`;
}

/** `text` with every hidden character shown escaped, line breaks included: one line. */
export function escapeControls(text: string): string {
  return text.replace(HIDDEN, escaped);
}

/** Lines the CLI composed, each escaped whole, joined by the CLI's own line breaks. */
export function printableLines(lines: readonly string[]): string {
  return lines.map((line) => `${escapeControls(line)}\n`).join('');
}

/** A chunk of a server's stderr: its line breaks are kept (it is a log), nothing else is. */
export function printableLog(chunk: string): string {
  return chunk.split('\n').map(escapeControls).join('\n');
}

/**
 * A JSON document, exact: JSON.stringify already escapes C0 inside strings; the other hidden
 * characters (which can only occur inside strings) become `\uXXXX` escapes, as JSON allows,
 * so the text parses to exactly the same data and no byte of it is a terminal control.
 */
export function printableJson(json: string): string {
  return json.replace(HIDDEN, (char) => {
    if (char === '\n') return char; // JSON.stringify's own indentation; strings never hold one raw
    let units = '';
    for (let i = 0; i < char.length; i += 1) units += `\\u${hex(char.charCodeAt(i), 4)}`;
    return units;
  });
}
