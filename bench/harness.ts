/**
 * A small timing harness. Variants of one comparison run interleaved, round by round in a
 * rotating order, so drift over the run (JIT tiering, heap growth, a noisy neighbour) lands
 * on every variant alike instead of on whichever happened to run last. With --expose-gc the
 * young generation is collected before each timed run, so one variant does not pay for
 * another's short-lived garbage.
 *
 * A minor collection, not a full one: a full collection drops the hidden classes of objects
 * that no longer have a live instance (V8 keeps them only through weak transitions) and
 * deoptimizes every function compiled against them. The library makes such objects on every
 * call (a validation pass, a tool context, a run's log), so each timed run after a full GC
 * measured re-optimization: on Node 20, `dispatchTool` of an MCP tool went from 1.0x to 1.5x
 * a raw request and a 200-turn engine run from 1.6 to 2.4 ms (`--trace-deopt`: "marking
 * dependent code ... reason: weak objects" for the dispatch path and the agent loop). A host
 * pays that once per major collection, not once per thousand calls.
 */
import os from 'node:os';
import process from 'node:process';
import { performance } from 'node:perf_hooks';

export interface Variant {
  readonly name: string;
  /** Untimed, before every run: puts the variant back into the state the run must start from. */
  readonly setup?: () => Promise<void>;
  /** The timed work. */
  readonly run: () => Promise<void>;
}

export interface Stats {
  readonly name: string;
  readonly median: number;
  readonly p95: number;
  readonly min: number;
  readonly runs: number;
}

export interface CompareOptions {
  readonly warmup: number;
  readonly iterations: number;
}

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const collect: (() => void) | undefined = gc === undefined ? undefined : () => gc({ type: 'minor' });

export async function compare(variants: readonly Variant[], options: CompareOptions): Promise<Stats[]> {
  const samples = variants.map(() => [] as number[]);
  for (let round = 0; round < options.warmup + options.iterations; round += 1) {
    for (let k = 0; k < variants.length; k += 1) {
      const index = (round + k) % variants.length;
      const variant = variants[index];
      if (variant === undefined) continue;
      await variant.setup?.();
      collect?.();
      const started = performance.now();
      await variant.run();
      const ms = performance.now() - started;
      if (round >= options.warmup) samples[index]?.push(ms);
    }
  }
  return variants.map((variant, i) => summarize(variant.name, samples[i] ?? []));
}

function summarize(name: string, runs: number[]): Stats {
  const sorted = [...runs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 === 1 ? at(0.5) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
  return { name, median, p95: at(0.95), min: sorted[0] ?? NaN, runs: sorted.length };
}

/** Prints one comparison; ratios are of medians against the row named `floor`. */
export function printTable(title: string, rows: readonly Stats[], floor: string): void {
  const base = rows.find((row) => row.name === floor)?.median ?? NaN;
  const width = Math.max(...rows.map((row) => row.name.length), 7);
  const num = (value: number, digits = 2) => value.toFixed(digits).padStart(9);
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(`  ${'variant'.padEnd(width)}  ${'median ms'.padStart(9)}  ${'p95 ms'.padStart(9)}  ${'min ms'.padStart(9)}  ${'x floor'.padStart(9)}\n`);
  for (const row of rows) {
    const ratio = `${(row.median / base).toFixed(2)}x`.padStart(9);
    process.stdout.write(`  ${row.name.padEnd(width)}  ${num(row.median)}  ${num(row.p95)}  ${num(row.min)}  ${ratio}\n`);
  }
  process.stdout.write(`  (${rows[0]?.runs ?? 0} timed runs per variant, interleaved; ratio = median / median of "${floor}")\n`);
}

/** The median of the variant named `name`; NaN when there is none, which fails any target. */
export function median(rows: readonly Stats[], name: string): number {
  return rows.find((row) => row.name === name)?.median ?? NaN;
}

/** The machine the figures came from, printed first so a pasted result carries it. */
export function printMachine(): void {
  const cpus = os.cpus();
  const lines = [
    `os:    ${os.type()} ${os.release()} (${os.arch()})`,
    `cpu:   ${cpus[0]?.model.trim() ?? 'unknown'}, ${cpus.length} logical cores`,
    `node:  ${process.version}`,
    `gc:    ${collect === undefined ? 'not exposed (run with --expose-gc for steadier figures)' : 'young generation collected before each timed run'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
