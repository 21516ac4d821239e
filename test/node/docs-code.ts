/**
 * The code blocks of the README and the guides, as test/node/docs-code.test.ts checks them.
 * A block is a fenced block whose opening fence names its language. A ```ts block is either
 * an examples/ file quoted verbatim (a test runs that file) or type-checked against the built
 * package; what it leaves out to stay short it declares in a visible HTML comment on the line
 * right before its fence, which is compiled ahead of it:
 *
 *   <!-- check: declare const store: SecretStore; -->
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface CodeBlock {
  /** The Markdown file, relative to the repository root (`docs/mcp.md`). */
  doc: string;
  /** 1-based line of the block's first code line in `doc`. */
  line: number;
  /** What the opening fence names: `ts`, `sh`, `json`…; '' when it names nothing. */
  lang: string;
  code: string;
  /** The `<!-- check: … -->` text right before the fence, if any. */
  context?: string;
}

/** README.md, every guide under docs/ and the examples' own READMEs, in a stable order. */
export async function docFiles(root: string): Promise<string[]> {
  const guides = (await readdir(path.join(root, 'docs'))).filter((file) => file.endsWith('.md')).sort();
  const folders = await readdir(path.join(root, 'examples'), { withFileTypes: true });
  const readmes = folders.filter((entry) => entry.isDirectory() && existsSync(path.join(root, 'examples', entry.name, 'README.md')));
  return ['README.md', ...guides.map((file) => `docs/${file}`), ...readmes.map((entry) => `examples/${entry.name}/README.md`).sort()];
}

const FENCE = /^(```+|~~~+)\s*([\w+-]*)/;
const CONTEXT = /^<!--\s*check:([\s\S]*?)-->\s*$/;

/** The fenced blocks of one Markdown text (fences at the start of a line, as the guides write them). */
export function codeBlocks(doc: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) continue;
    const [, marker = '```', lang = ''] = open;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !(lines[end] ?? '').startsWith(marker)) end++;
    const context = contextBefore(lines, i);
    blocks.push({ doc, line: start + 1, lang, code: lines.slice(start, end).join('\n'), ...(context === undefined ? {} : { context }) });
    i = end;
  }
  return blocks;
}

/** The check comment ending on the line right above the fence (it may span several lines). */
function contextBefore(lines: readonly string[], fence: number): string | undefined {
  const above = fence - 1;
  if (!(lines[above] ?? '').trimEnd().endsWith('-->')) return undefined;
  let first = above;
  while (first >= 0 && !(lines[first] ?? '').includes('<!--')) first--;
  const comment = CONTEXT.exec(lines.slice(first, above + 1).join('\n').trim());
  return comment?.[1]?.trim();
}

/** An example's code as a guide quotes it: the file without its leading doc comment. */
export function quotable(source: string): string {
  return source.replace(/^\/\*\*[\s\S]*?\*\/\n/, '').trimEnd();
}

/** examples/*.ts by name, as `quotable` shows them. */
export async function examples(root: string): Promise<Map<string, string>> {
  const dir = path.join(root, 'examples');
  const files = (await readdir(dir)).filter((file) => file.endsWith('.ts'));
  return new Map(await Promise.all(files.map(async (file) => [file, quotable(await readFile(path.join(dir, file), 'utf8'))] as const)));
}

/**
 * The module a block is compiled as, from a file in `<root>/.docs-code/`: its context, then its
 * code, with relative imports pointed at examples/ (blocks are written as the examples are, so
 * `./servers/workbench.js` is the workbench server). Returns the text and how many lines come
 * before the block's first line, to map a diagnostic back to the guide.
 */
export function moduleOf(block: CodeBlock): { text: string; offset: number } {
  const code = block.code.replace(/(from\s+|import\s*\(\s*)(['"])\.\//g, '$1$2../examples/');
  if (block.context === undefined) return { text: `${code}\n`, offset: 0 };
  return { text: `${block.context}\n${code}\n`, offset: block.context.split('\n').length };
}

/** What the README's Quick start prints, here and in an empty folder (test/node/package.test.ts). */
export const QUICKSTART_OUTPUT = [
  'tools: notes_add_note',
  'standard: allow, saved "hello"',
  `strict: ask, tool "notes_add_note" needs approval (risk write: preset 'strict' asks approval for write tools)`,
  '',
].join('\n');
