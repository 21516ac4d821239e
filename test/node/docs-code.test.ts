/**
 * Every code block in README.md and docs/*.md is code a test runs or type-checks: a ```ts
 * block quotes an examples/ file verbatim (and a test runs that file), or it compiles against
 * the built package under the project's strict tsconfig, all blocks in one tsc run. Blocks in
 * other languages (sh, json, text) are shown, not run, and each fence names its language so a
 * TypeScript block cannot slip past as plain text. Also: every relative link in them resolves,
 * and the README's map links every guide. (The compile needs dist/, so it runs when npm test
 * has just built it, RULVAR_TEST_DIST=1; the rest always runs.)
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, docFiles, examples, moduleOf, type CodeBlock } from './docs-code.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
/** Inside the package, so `@rulvar/core` resolves through its own exports map to dist/ (gitignored). */
const workDir = path.join(root, '.docs-code');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const docs = await docFiles(root);
const texts = new Map(await Promise.all(docs.map(async (doc) => [doc, await readFile(path.join(root, doc), 'utf8')] as const)));
const blocks = docs.flatMap((doc) => codeBlocks(doc, texts.get(doc) ?? ''));
const tsBlocks = blocks.filter((block) => block.lang === 'ts');
const quotedExamples = await examples(root);
const where = (block: CodeBlock) => `${block.doc}:${block.line}`;
/** The examples/ file a block quotes verbatim, if it quotes one. */
const quoted = (block: CodeBlock) => [...quotedExamples].find(([, code]) => code === block.code.trimEnd())?.[0];
const checked = tsBlocks.filter((block) => quoted(block) === undefined);

describe('code blocks of the README and the guides', () => {
  it('are found (the extractor sees the blocks the guides have)', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(8);
    expect(tsBlocks.some((block) => block.doc === 'README.md')).toBe(true);
  });

  it('each name their language, and TypeScript is written ts', () => {
    const unnamed = blocks.filter((block) => block.lang === '').map(where);
    expect(unnamed).toEqual([]);
    const otherScript = blocks.filter((block) => /^(js|javascript|mjs|cjs|jsx|tsx|mts|typescript)$/.test(block.lang)).map((block) => `${where(block)} ${block.lang}`);
    expect(otherScript).toEqual([]);
  });

  it.each(tsBlocks.flatMap((block) => (quoted(block) === undefined ? [] : [[where(block), quoted(block) ?? '']])))(
    '%s quotes examples/%s, which a test runs',
    async (_where, file) => {
      const tests = await readdir(path.join(root, 'test/node'));
      const sources = await Promise.all(tests.filter((name) => name.endsWith('.test.ts')).map((name) => readFile(path.join(root, 'test/node', name), 'utf8')));
      expect(sources.some((source) => source.includes(`'${file}'`))).toBe(true);
    },
  );
});

describe('links of the README and the guides', () => {
  const links = docs.flatMap((doc) =>
    [...(texts.get(doc) ?? '').matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target = '']) =>
      /^(https?:|mailto:|#)/.test(target) ? [] : [{ doc, target: target.replace(/#.*$/, '') }],
    ),
  );

  it('every relative link names a file that exists', () => {
    const broken = links.filter(({ doc, target }) => !existsSync(path.resolve(root, path.dirname(doc), decodeURI(target))));
    expect(broken).toEqual([]);
    expect(links.length).toBeGreaterThan(10);
  });

  it("the README's map links every guide", () => {
    const mapped = new Set(links.filter((link) => link.doc === 'README.md').map((link) => path.normalize(link.target)));
    expect(docs.filter((doc) => doc !== 'README.md' && !mapped.has(doc))).toEqual([]);
  });
});

describe.runIf(enabled)('ts blocks type-check against the built package', () => {
  const diagnostics = new Map<string, string[]>();
  const outside: string[] = [];
  const files = checked.map((block, i) => ({ block, file: `block-${String(i).padStart(2, '0')}.ts`, ...moduleOf(block) }));

  beforeAll(async () => {
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
    await Promise.all(files.map(({ file, text }) => writeFile(path.join(workDir, file), text)));
    // The project's own compiler options (strict, noUncheckedIndexedAccess,
    // exactOptionalPropertyTypes, NodeNext), over these files only.
    const tsconfig = { extends: '../tsconfig.json', files: files.map(({ file }) => file), include: [] };
    await writeFile(path.join(workDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const output = await promisify(execFile)(process.execPath, [tsc, '-p', workDir, '--pretty', 'false'], { cwd: workDir }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // `block-03.ts(12,5): error TS2304: …`, its continuation lines indented; anything else
    // (a config error, a crash) is kept under '' so that it fails the run too.
    let current = outside;
    for (const line of output.split('\n')) {
      const head = /^(block-\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      if (head === null) {
        if (line.trim() !== '') current.push(line.trim());
        continue;
      }
      const [, file = '', row = '0', column = '0', message = ''] = head;
      const entry = files.find((candidate) => candidate.file === file);
      current = outside;
      if (entry !== undefined) {
        current = diagnostics.get(file) ?? [];
        diagnostics.set(file, current);
      }
      const at = entry === undefined ? `${file}:${row}` : `${entry.block.doc}:${entry.block.line + Number(row) - 1 - entry.offset}:${column}`;
      current.push(`${at} ${message}`);
    }
  }, 120_000);

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('tsc reports nothing outside the blocks', () => {
    expect(outside).toEqual([]);
  });

  it.each(files.map(({ block, file }) => [where(block), file] as const))('%s compiles', (_where, file) => {
    expect(diagnostics.get(file) ?? []).toEqual([]);
  });
});
