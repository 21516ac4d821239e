/**
 * What the benches hand back, and the two things done with it besides printing: the benchmarks guide's
 * Benchmarks block (between `<!-- bench:start -->` and `<!-- bench:end -->`) rendered from the
 * rows of the run itself, and the list of missed targets `--check` fails on.
 */
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import process from 'node:process';

/** One row of the benchmarks guide's main table: the library against the raw-SDK floor, same run. */
export interface Row {
  /** The variant's name in the console output and in target lines. */
  readonly name: string;
  /** The guide's Comparison cell (Markdown). */
  readonly comparison: string;
  /** Words before the floor's figure in the Floor cell; `undefined` leaves the cell blank (the row above's floor). */
  readonly floorLabel: string | undefined;
  /** Median of the floor, ms. */
  readonly floor: number;
  /** Median of the library's variant, ms; two figures when the row spans variants (lowest, highest). */
  readonly value: number;
  readonly valueMax: number | undefined;
  /** value / floor (and valueMax / floor). */
  readonly ratio: number;
  readonly ratioMax: number | undefined;
  /** The ceiling on the ratio, when the row is held to one. */
  readonly target: number | undefined;
  /** Whether the (highest) ratio is within the target; true for rows with no target. */
  readonly met: boolean;
  /** Shown in the Target cell of a row with no target. */
  readonly note: string | undefined;
}

export interface RowInput {
  readonly name: string;
  readonly comparison: string;
  readonly floorLabel?: string;
  readonly floor: number;
  /** One median, or several (the row shows their range). */
  readonly values: readonly number[];
  readonly target?: number;
  readonly note?: string;
}

export function measured(input: RowInput): Row {
  const low = Math.min(...input.values);
  const high = Math.max(...input.values);
  const spans = input.values.length > 1;
  const ratioMax = spans ? high / input.floor : undefined;
  const worst = ratioMax ?? low / input.floor;
  return {
    name: input.name,
    comparison: input.comparison,
    floorLabel: input.floorLabel,
    floor: input.floor,
    value: low,
    valueMax: spans ? high : undefined,
    ratio: low / input.floor,
    ratioMax,
    target: input.target,
    // NaN (a floor of 0, a missing variant) counts as missed: a check must not pass on no data.
    met: input.target === undefined || worst <= input.target,
    note: input.note,
  };
}

/** One row of the hostile-shapes table. */
export interface HostileRow {
  readonly shape: string;
  readonly bytes: number;
  readonly hostileMs: number;
  readonly hostileWork: number;
  readonly outcome: string;
  readonly benignMs: number;
  readonly benignWork: number;
}

export interface Report {
  readonly rows: readonly Row[];
  readonly hostile: readonly HostileRow[];
}

/** The target lines printed under a comparison, one per row held to a ceiling. */
export function printTargets(rows: readonly Row[]): void {
  for (const row of rows) {
    if (row.target === undefined) continue;
    const ratio = row.ratioMax ?? row.ratio;
    process.stdout.write(`  target <= ${row.target.toFixed(2)}x floor, ${row.name}: ${ratio.toFixed(2)}x, ${row.met ? 'met' : 'MISSED'}\n`);
  }
}

export function missed(report: Report): Row[] {
  return report.rows.filter((row) => !row.met);
}

const group = (n: number) => n.toLocaleString('en-US');

/** Milliseconds as the guide writes them: µs under a millisecond, one decimal under 100 ms. */
function time(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  return ms < 100 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function timeRange(low: number, high: number | undefined): string {
  if (high === undefined) return time(low);
  const [a, b] = [time(low), time(high)];
  const unit = a.slice(a.indexOf(' '));
  return unit === b.slice(b.indexOf(' ')) ? `${a.slice(0, a.indexOf(' '))}–${b}` : `${a}–${b}`;
}

const ratioText = (r: number) => (r < 10 ? r.toFixed(2) : String(Math.round(r)));

function mainRow(row: Row): string {
  const floor = row.floorLabel === undefined ? '' : `${row.floorLabel} ${time(row.floor)}`.trim();
  const ratio = row.ratioMax === undefined ? `${ratioText(row.ratio)}×` : `${ratioText(row.ratio)}–${ratioText(row.ratioMax)}×`;
  const target = row.target === undefined ? (row.note ?? '') : `≤ ${row.target}×${row.met ? '' : ' (missed)'}`;
  return tableRow([row.comparison, floor, timeRange(row.value, row.valueMax), ratio, target]);
}

/** A Markdown table row; an empty cell is written `| |`. */
function tableRow(cells: readonly string[]): string {
  return `|${cells.map((cell) => (cell === '' ? ' ' : ` ${cell} `)).join('|')}|`;
}

/** JSON Schema keywords that shape names mention, set as code in the guide. */
const KEYWORDS = /(?<![\w$])(\$defs|anyOf|uniqueItems|patternProperties|pattern|items)(?![\w-])/g;

/** A fixture's shape name in Markdown: quoted text and keywords as code, long numbers grouped, `20x` as `20×`. */
function shapeLabel(name: string): string {
  return name
    .split(/'([^']*)'/)
    .map((part, i) =>
      i % 2 === 1
        ? `\`${part}\``
        : part
            .replace(KEYWORDS, '`$1`')
            .replace(/\b\d{4,}\b/g, (n) => group(Number(n)))
            .replace(/\b(\d+)x\b/g, '$1×'),
    )
    .join('');
}

function hostileRow(row: HostileRow): string {
  return tableRow([shapeLabel(row.shape), group(row.bytes), `${row.hostileMs.toFixed(1)} ms`, group(row.hostileWork), row.outcome, `${row.benignMs.toFixed(1)} ms`]);
}

/** Greedy word wrap, so the generated prose reads like the rest of the guide. */
function wrap(text: string, width = 95): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

function machine(): string {
  const cpus = os.cpus();
  const release = os.release().split('.').slice(0, 2).join('.');
  const date = new Date().toISOString().slice(0, 10);
  return `${date}, ${os.type()} ${release} ${os.arch()}, ${cpus[0]?.model.trim() ?? 'unknown CPU'} (${cpus.length} logical cores), Node ${process.version}`;
}

/** The whole block between the markers, markers excluded. */
export function renderBlock(report: Report): string {
  const misses = missed(report).map((row) => `\`${row.name}\` (${ratioText(row.ratioMax ?? row.ratio)}× against ≤ ${row.target ?? '?'}×)`);
  return [
    wrap(
      `Last run: ${machine()}; medians of interleaved runs, ratio against the floor measured in the same run (\`bench/\` says what each row does; absolute times move with machine load, the ratios much less).`,
    ),
    '',
    '| Comparison | Floor (raw SDK) | This library | Ratio | Target |',
    '|---|---|---|---|---|',
    ...report.rows.map(mainRow),
    '',
    wrap(
      'Hostile shapes (issue 8): each validated against its instance by the schema that used to block the host for seconds to minutes (or exhaust its heap), next to a benign schema of the same byte size against the same instance. Work is the verdict pass\'s units; "budget" is the allowance running out, by design.',
    ),
    '',
    '| Shape | Schema bytes | Hostile | Work | Outcome | Benign |',
    '|---|---|---|---|---|---|',
    ...report.hostile.map(hostileRow),
    '',
    wrap(
      [
        'Before this validator the first row took 37 s at 1,000 characters, the third ended in a heap out-of-memory, the fourth took 42 s, the fifth 38 s and the sixth about 5 minutes.',
        misses.length === 0
          ? 'Every target was met in this run.'
          : `Missed in this run: ${misses.join('; ')}.`,
        'The bound rows say where a target cannot be met by any implementation: past the sweep, resolving must hash what it imports, and `JSON.stringify` plus one SHA-256 of the listed contracts alone takes the sweep past 2× from 1,000 tools up; the rest of resolving is the frozen copy of each schema a toolset holds, admission (a canonical-order private copy of its own) and the collector. An engine must journal each turn, and keeping just the JSON text of each response and result takes the hand loop past 1.15×; the rest of the engine run is its copies, frozen entries, events and the spawn. Resume replays an ended agent from its journal entries without rebuilding its turns; what is left is loading and indexing the entries and keying the spawn.',
      ].join(' '),
    ),
  ].join('\n');
}

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

/** Replaces the benchmarks guide's block with one rendered from `report`; the rest is left byte for byte. */
export async function writeBenchDocs(report: Report, path = new URL('../docs/benchmarks.md', import.meta.url)): Promise<void> {
  const text = await readFile(path, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${START} … ${END} block`);
  await writeFile(path, `${text.slice(0, start + START.length)}\n${renderBlock(report)}\n${text.slice(end)}`);
}
