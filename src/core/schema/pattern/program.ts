/**
 * The tree as a Thompson-style program: a flat array of instructions where each one either
 * consumes a character or moves without consuming (fork, jump, assertion). Counted
 * repetition is written out copy by copy; tree.ts has already priced every node and refused
 * what would not fit, so the arrays are allocated once at their exact size.
 *
 * A step (one-character atom) repeated needs no jumps: SKIP on a step means "or move on to
 * its target without consuming" and LOOP means "after consuming, it may consume again", so
 * `a?`, `a*` and `a+`'s tail are one instruction each and `[a-z]{1,64}` is 64. The optional
 * copies of `a{1,64}` all skip to the end of the run, not to the next copy: after k letters
 * one thread is alive there, not 64 - k, which would make `^.{0,5000}$` quadratic.
 */
import { MAX_PATTERN_CLASSES } from '../limits.js';
import { CharClass } from './char-sets.js';
import { PatternUnsupportedError, isStep, type Node, type Step } from './tree.js';

// Operations in the low bits of `ops`; SKIP and LOOP are flags on the three steps.
export const MATCH = 0;
export const CHAR = 1; // args: the code point
export const ANY = 2;
export const CLASS = 3; // args: index into `classes`
export const JUMP = 4; // to targets
export const FORK = 5; // to both pc + 1 and targets
export const BEGIN = 6;
export const END = 7;
export const BOUNDARY = 8;
export const NON_BOUNDARY = 9;
export const OPERATION = 0x0f;
export const SKIP = 0x10;
export const LOOP = 0x20;

export interface Program {
  readonly ops: Uint8Array;
  readonly args: Int32Array;
  readonly targets: Int32Array;
  readonly classes: readonly CharClass[];
  /** Every match starts at index 0 (see tree.ts), so the search never restarts later. */
  readonly anchored: boolean;
}

const ASSERTIONS = { begin: BEGIN, end: END, boundary: BOUNDARY, 'non-boundary': NON_BOUNDARY } as const;

export function assemble(root: Node): Program {
  const assembler = new Assembler(root.size + 1);
  assembler.emit(root);
  return assembler.finish(root.anchored);
}

class Assembler {
  private readonly ops: Uint8Array;
  private readonly args: Int32Array;
  private readonly targets: Int32Array;
  private pc = 0;
  private readonly classes: CharClass[] = [];
  /** One CharClass per distinct text, so copies made by counted repetition share a cache. */
  private readonly classIndex = new Map<string, number>();

  constructor(private readonly size: number) {
    this.ops = new Uint8Array(size);
    this.args = new Int32Array(size);
    this.targets = new Int32Array(size);
  }

  finish(anchored: boolean): Program {
    this.put(MATCH);
    // Typed arrays drop writes past their end, so a size that disagrees with tree.ts would
    // not fail loudly on its own: a wrong program must never run.
    if (this.pc !== this.size) throw new Error(`pattern program has ${this.pc} instructions, expected ${this.size}`);
    return { ops: this.ops, args: this.args, targets: this.targets, classes: this.classes, anchored };
  }

  emit(node: Node): void {
    switch (node.kind) {
      case 'empty':
        return;
      case 'char':
      case 'any':
      case 'class':
        this.step(node, 0);
        return;
      case 'assert':
        this.put(ASSERTIONS[node.assertion]);
        return;
      case 'sequence':
        for (const item of node.items) this.emit(item);
        return;
      case 'choice':
        this.emitChoice(node.options);
        return;
      case 'repeat':
        if (isStep(node.body)) this.repeatStep(node.body, node.min, node.max);
        else this.repeatGroup(node.body, node.min, node.max);
    }
  }

  private emitChoice(options: readonly Node[]): void {
    const exits: number[] = [];
    const last = options.length - 1;
    for (let index = 0; index < last; index += 1) {
      const fork = this.put(FORK);
      this.emit(options[index] as Node);
      exits.push(this.put(JUMP));
      this.targets[fork] = this.pc;
    }
    this.emit(options[last] as Node);
    this.land(exits);
  }

  private repeatStep(step: Step, min: number, max: number): void {
    if (max === Infinity) {
      for (let i = 1; i < min; i += 1) this.step(step, 0);
      this.land([this.step(step, min === 0 ? SKIP | LOOP : LOOP)]);
      return;
    }
    for (let i = 0; i < min; i += 1) this.step(step, 0);
    const skips: number[] = [];
    for (let i = min; i < max; i += 1) skips.push(this.step(step, SKIP));
    this.land(skips);
  }

  private repeatGroup(body: Node, min: number, max: number): void {
    if (max === Infinity && min === 0) {
      const fork = this.put(FORK);
      this.emit(body);
      this.targets[this.put(JUMP)] = fork;
      this.land([fork]);
      return;
    }
    const copies = max === Infinity ? min - 1 : min;
    for (let i = 0; i < copies; i += 1) this.emit(body);
    if (max === Infinity) {
      const start = this.pc;
      this.emit(body);
      this.targets[this.put(FORK)] = start;
      return;
    }
    // Optional copies nest, (b(b(b)?)?)?, so one that is skipped skips all that follow.
    const forks: number[] = [];
    for (let i = min; i < max; i += 1) {
      forks.push(this.put(FORK));
      this.emit(body);
    }
    this.land(forks);
  }

  private step(step: Step, flags: number): number {
    if (step.kind === 'char') return this.put(CHAR | flags, step.codePoint);
    if (step.kind === 'any') return this.put(ANY | flags);
    return this.put(CLASS | flags, this.classFor(step.text));
  }

  private classFor(text: string): number {
    let index = this.classIndex.get(text);
    if (index === undefined) {
      if (this.classes.length >= MAX_PATTERN_CLASSES) {
        throw new PatternUnsupportedError(`uses more than ${MAX_PATTERN_CLASSES} distinct character classes`);
      }
      index = this.classes.push(new CharClass(text)) - 1;
      this.classIndex.set(text, index);
    }
    return index;
  }

  /** Points the moves of the instructions at `from` to the next instruction to be emitted. */
  private land(from: readonly number[]): void {
    for (const pc of from) this.targets[pc] = this.pc;
  }

  /** Appends one instruction and returns its address. */
  private put(op: number, arg = 0): number {
    this.ops[this.pc] = op;
    this.args[this.pc] = arg;
    this.pc += 1;
    return this.pc - 1;
  }
}
