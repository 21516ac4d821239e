/**
 * rulvar-mcp's output in process (docs/cli.md), where the mutation run can see it: what
 * reaches the terminal (terminal.ts), the table and the JSON view (render.ts), pins read,
 * compared and shown (check.ts). cli.test.ts runs the same promises through the built
 * command; this file pins the exact text each part makes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPins, readPins, renderPinResults, renderPinResultsJson } from '../../src/cli/check.js';
import { CliExit, EXIT } from '../../src/cli/exit.js';
import type { Inspection } from '../../src/cli/inspect.js';
import { renderJson, renderTable } from '../../src/cli/render.js';
import { escapeControls, printableJson, printableLines, printableLog } from '../../src/cli/terminal.js';
import { attestToolset, resolveToolset, type ToolDef } from '../../src/node/index.js';
import { caught } from '../core/helpers.js';

const exitOf = async (work: () => unknown): Promise<{ exitCode: number; message: string }> => {
  const error = await caught(work);
  expect(error).toBeInstanceOf(CliExit);
  return { exitCode: (error as CliExit).exitCode, message: (error as CliExit).message };
};

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rulvar-cli-units-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('terminal.ts: every hidden character shown escaped, plain text as it is', () => {
  it('escapes each class with its shortest form and keeps visible text, accents and emoji', () => {
    const cases: [string, string][] = [
      ['\n\r\t', '\\n\\r\\t'],
      ['\x00\x01\x1b\x7f', '\\x00\\x01\\x1b\\x7f'],
      ['\x85\x9b\xad', '\\x85\\x9b\\xad'],
      ['\u200b\u202e\u2066\u2028\u2029\ufeff', '\\u200b\\u202e\\u2066\\u2028\\u2029\\ufeff'],
      ['\ud800', '\\ud800'],
      ['\u{e0041}\u{e0100}\u{e01ef}', '\\u{e0041}\\u{e0100}\\u{e01ef}'],
    ];
    for (const [raw, shown] of cases) expect(escapeControls(`a${raw}b`)).toBe(`a${shown}b`);
    expect(escapeControls('plain é ü 😀 ∑ ~')).toBe('plain é ü 😀 ∑ ~');
    expect(escapeControls('\u{e01f0}')).toBe('\u{e01f0}');
  });

  it('printableLines ends each line with the only raw break; printableLog keeps the log breaks and nothing else', () => {
    expect(printableLines(['one\x1b[2J', 'two\nthree'])).toBe('one\\x1b[2J\ntwo\\nthree\n');
    expect(printableLines([])).toBe('');
    expect(printableLog('a\x1b]52;c;eA==\x07\nb\r\n')).toBe('a\\x1b]52;c;eA==\\x07\nb\\r\n');
  });

  it('printableJson parses back to the same data with no raw hidden character but its own line breaks', () => {
    const data = { name: 'x\u202ey', tag: '\u{e0041}', esc: '\x1b', plain: 'é' };
    const json = printableJson(`${JSON.stringify(data, null, 2)}\n`);
    expect(JSON.parse(json)).toEqual(data);
    expect(json).toContain('x\\u202ey');
    expect(json).toContain('\\udb40\\udc41');
    expect(json).toContain('"plain": "é"');
    expect(json.replace(/\n/g, '')).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(json.split('\n').length).toBe(7);
  });
});

const row = (name: string, over: Partial<Inspection['tools'][number]> = {}): Inspection['tools'][number] => ({
  name,
  risk: 'read',
  needsApproval: false,
  verdicts: { strict: 'ask', standard: 'allow', open: 'allow' },
  schemaBytes: 42,
  admission: { status: 'admitted' },
  ...over,
});

describe('render.ts', () => {
  const refused: Inspection = {
    source: 'stdio:srv',
    tools: [row('alpha'), row('b', { risk: null, needsApproval: true, schemaBytes: null, verdicts: {}, admission: { status: 'refused', code: 'schema.invalid', message: 'bad \x1b' } }), row('c')],
    resolved: undefined,
  };

  it('a table aligned on every column but the last, with undeclared risk, unknown bytes and a refusal shown', () => {
    expect(renderTable(refused, 'all')).toEqual([
      'source stdio:srv: 3 tools',
      '',
      'TOOL   RISK          APPROVAL  STRICT  STANDARD  OPEN   BYTES  ADMISSION',
      'alpha  read          no        ask     allow     allow  42     admitted',
      'b      (undeclared)  yes       -       -         -      ?      refused schema.invalid: bad \x1b',
      'c      read          no        ask     allow     allow  42     admitted',
      '',
      'toolsetHash    (none: 1 of 3 tools refused admission)',
      'authorityHash  (none)',
    ]);
  });

  it('one preset gives one verdict column; a resolved toolset shows its hashes; JSON carries the same', async () => {
    const tool: ToolDef = { name: 'alpha', description: 'a', parameters: { type: 'object' }, needsApproval: false, execute: () => Promise.resolve('ok') };
    const resolved = await resolveToolset([tool]);
    const admitted: Inspection = { source: 's', tools: [row('alpha')], resolved };
    const lines = renderTable(admitted, 'standard');
    expect(lines[2]).toBe('TOOL   RISK  APPROVAL  STANDARD  BYTES  ADMISSION');
    expect(lines[3]).toBe('alpha  read  no        allow     42     admitted');
    expect(lines.slice(-2)).toEqual([`toolsetHash    ${resolved.toolsetHash}`, `authorityHash  ${resolved.authorityHash}`]);
    expect(JSON.parse(renderJson(admitted, 'standard'))).toEqual({
      format: 'rulvar.inspect/1',
      source: 's',
      presets: ['standard'],
      tools: [row('alpha')],
      toolsetHash: resolved.toolsetHash,
      authorityHash: resolved.authorityHash,
    });
    const none = JSON.parse(renderJson(refused, 'all')) as Record<string, unknown>;
    expect([none.presets, none.toolsetHash, none.authorityHash]).toEqual([['strict', 'standard', 'open'], null, null]);
    expect(renderJson(refused, 'all')).toContain('bad \\u001b');
  });
});

describe('check.ts: pins read before any connection, compared, shown', () => {
  const tool = (name: string, description = name, risk: ToolDef['risk'] = 'read'): ToolDef => ({ name, description, risk, parameters: { type: 'object' }, needsApproval: false, execute: () => Promise.resolve('ok') });

  it('an unreadable file, a file that is not JSON and a JSON of another format are exit 4 naming the file', async () => {
    const notJson = join(dir, 'not.json');
    const other = join(dir, 'other.json');
    await writeFile(notJson, '{');
    await writeFile(other, JSON.stringify({ format: 'something/1' }));
    expect(await exitOf(() => readPins([join(dir, 'missing.json')]))).toMatchObject({ exitCode: EXIT.pin, message: expect.stringContaining('missing.json: ') });
    expect(await exitOf(() => readPins([notJson]))).toMatchObject({ exitCode: EXIT.pin, message: expect.stringMatching(/not\.json: .*JSON/) });
    expect(await exitOf(() => readPins([other]))).toEqual({ exitCode: EXIT.pin, message: `${other}: not a toolset attestation ('format' is not 'rulvar.toolset-attestation/1')` });
    await writeFile(join(dir, 'null.json'), 'null');
    expect((await exitOf(() => readPins([join(dir, 'null.json')]))).exitCode).toBe(EXIT.pin);
  });

  it('a matching pin is ok, a drifted one lists what changed, went missing and appeared; both views say so', async () => {
    const before = await resolveToolset([tool('alpha'), tool('beta')]);
    const pin = join(dir, 'pin.json');
    await writeFile(pin, JSON.stringify(await attestToolset(before)));
    const pins = await readPins([pin, pin]);
    expect(pins.map((p) => p.file)).toEqual([pin, pin]);
    expect(await checkPins(before, pins)).toEqual([{ file: pin, drift: undefined }, { file: pin, drift: undefined }]);
    const after = await resolveToolset([tool('alpha', 'changed'), tool('gamma')]);
    const results = await checkPins(after, pins.slice(0, 1));
    expect(renderPinResults([{ file: 'ok.json', drift: undefined }, ...results])).toEqual([
      'ok.json: ok',
      `${pin}: drifted`,
      '  changed     alpha (contract)',
      '  missing     beta',
      '  unexpected  gamma',
    ]);
    const [riskOnly] = await checkPins(await resolveToolset([tool('alpha', 'alpha', 'write'), tool('beta')]), pins.slice(0, 1));
    const [both] = await checkPins(await resolveToolset([tool('alpha', 'changed', 'write'), tool('beta')]), pins.slice(0, 1));
    expect(renderPinResults([riskOnly!, both!]).filter((line) => line.includes('changed'))).toEqual(['  changed     alpha (authority)', '  changed     alpha (contract, authority)']);
    expect(JSON.parse(renderPinResultsJson([{ file: 'ok.json', drift: undefined }, ...results]))).toEqual([
      { file: 'ok.json', status: 'ok', changed: [], missing: [], unexpected: [] },
      { file: pin, status: 'drifted', changed: [{ name: 'alpha', contract: true, authority: false }], missing: ['beta'], unexpected: ['gamma'] },
    ]);
  });

  it('a pin of the right format but the wrong shape is exit 4, not a crash', async () => {
    const resolved = await resolveToolset([tool('alpha')]);
    const bad = { file: 'bad.json', attestation: { format: 'rulvar.toolset-attestation/1', tools: 'no' } as never };
    expect(await exitOf(() => checkPins(resolved, [bad]))).toMatchObject({ exitCode: EXIT.pin, message: expect.stringMatching(/^bad\.json: /) });
  });
});
