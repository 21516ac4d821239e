/**
 * The search itself: every live thread of the program advanced together, one code point at
 * a time (Thompson's simulation, as in a Pike VM without captures: a yes/no answer needs no
 * thread priorities). At each position an instruction is entered at most once, so a test
 * costs at most (instructions × (positions + 1)) steps whatever the pattern or text, and
 * that is what it charges the meter, position by position, so an over-budget test stops
 * within one character of passing the limit.
 *
 * The arrays are allocated once per compiled pattern and reused: a test runs synchronously
 * to its end, so two tests never overlap, and the generation stamps make a fresh start free
 * (also after a test abandoned by WORK_EXCEEDED).
 */
import type { WorkMeter } from '../budget.js';
import { isBoundary, isLineTerminator, type CharClass } from './char-sets.js';
import {
  ANY,
  BEGIN,
  BOUNDARY,
  CHAR,
  END,
  FORK,
  JUMP,
  LOOP,
  MATCH,
  NON_BOUNDARY,
  OPERATION,
  SKIP,
  type Program,
} from './program.js';

/** Work units a class check costs on top of its step, for an ASCII character. */
export const CLASS_CHECK_UNITS = 2;

/**
 * The same for any other character: past ASCII the per-class cache is small, so text of many
 * distinct characters sends each check to native RegExp (~300 ns against ~10 ns a step).
 */
export const WIDE_CLASS_CHECK_UNITS = 16;

export class PatternMatcher {
  private readonly ops: Uint8Array;
  private readonly args: Int32Array;
  private readonly targets: Int32Array;
  private readonly classList: readonly CharClass[];
  private readonly anchored: boolean;
  /** Consuming instructions alive before the current character, and after it. */
  private threads: Int32Array;
  private nextThreads: Int32Array;
  private nextCount = 0;
  /** The generation (one per position) in which each instruction was last entered. */
  private readonly entered: Int32Array;
  private generation = 0;
  /** Entered instructions whose moves are still to follow. */
  private readonly pending: Int32Array;
  /** Instructions entered at the current position: what it costs. */
  private cost = 0;
  /** What the class checks made at the current position cost on top of their steps. */
  private classUnits = 0;

  readonly states: number;

  constructor(
    readonly source: string,
    program: Program,
  ) {
    this.states = program.ops.length;
    this.ops = program.ops;
    this.args = program.args;
    this.targets = program.targets;
    this.classList = program.classes;
    this.anchored = program.anchored;
    const size = program.ops.length;
    this.threads = new Int32Array(size);
    this.nextThreads = new Int32Array(size);
    this.entered = new Int32Array(size);
    this.pending = new Int32Array(size);
  }

  get classes(): number {
    return this.classList.length;
  }

  test(text: string, meter: WorkMeter): boolean {
    const { ops, args, classList: classes, anchored, entered, pending } = this;
    this.classUnits = 0;
    this.nextPosition();
    entered[0] = this.generation;
    pending[0] = 0;
    if (this.follow(1, 0, text)) return this.found(meter);
    for (let at = 0; ; ) {
      this.charge(meter);
      const count = this.nextPosition();
      if (at >= text.length || (count === 0 && anchored)) return false;
      let codePoint = text.charCodeAt(at);
      if (codePoint >= 0xd800 && codePoint <= 0xdbff && at + 1 < text.length) {
        const trail = text.charCodeAt(at + 1);
        if (trail >= 0xdc00 && trail <= 0xdfff) codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (trail - 0xdc00);
      }
      const after = at + (codePoint > 0xffff ? 2 : 1);
      const { threads, generation } = this;
      let depth = 0;
      for (let i = 0; i < count; i += 1) {
        const pc = threads[i] as number;
        const op = ops[pc] as number;
        const arg = args[pc] as number;
        const kind = op & OPERATION;
        let accepts: boolean;
        if (kind === CHAR) accepts = arg === codePoint;
        else if (kind === ANY) accepts = !isLineTerminator(codePoint);
        else {
          this.classUnits += codePoint < 128 ? CLASS_CHECK_UNITS : WIDE_CLASS_CHECK_UNITS;
          accepts = (classes[arg] as CharClass).has(codePoint, text, at);
        }
        if (!accepts) continue;
        // A looping step may consume again at the next position, as well as move on.
        if ((op & LOOP) !== 0 && entered[pc] !== generation) {
          entered[pc] = generation;
          pending[depth++] = pc;
        }
        if (entered[pc + 1] !== generation) {
          entered[pc + 1] = generation;
          pending[depth++] = pc + 1;
        }
      }
      // Unanchored: a match may also start here.
      if (!anchored && entered[0] !== generation) {
        entered[0] = generation;
        pending[depth++] = 0;
      }
      if (this.follow(depth, after, text)) return this.found(meter);
      at = after;
    }
  }

  private found(meter: WorkMeter): true {
    this.charge(meter);
    return true;
  }

  /**
   * The steps of the current position. A class check is charged extra whether or not its
   * cache answered: a native check costs about five steps (text of many distinct non-ASCII
   * characters misses the bounded cache every time), and charging by outcome would make the
   * work of a test depend on what ran before it instead of on the pattern and the text.
   */
  private charge(meter: WorkMeter): void {
    meter.spend(this.cost + this.classUnits);
    this.classUnits = 0;
  }

  /** Makes the threads gathered so far current, starts an empty next set; returns the count. */
  private nextPosition(): number {
    const count = this.nextCount;
    const gathered = this.nextThreads;
    this.nextThreads = this.threads;
    this.threads = gathered;
    this.nextCount = 0;
    this.cost = 0;
    this.generation += 1;
    if (this.generation === 0x7fffffff) {
      this.entered.fill(0);
      this.generation = 1;
    }
    return count;
  }

  /**
   * Follows every move that consumes nothing from the first `depth` pending instructions
   * (entered at index `at`), gathering the consuming ones reached as next threads. True as
   * soon as MATCH is reached.
   */
  private follow(depth: number, at: number, text: string): boolean {
    const { ops, targets, entered, pending, nextThreads, generation } = this;
    let count = this.nextCount;
    let visited = 0;
    while (depth > 0) {
      depth -= 1;
      visited += 1;
      const pc = pending[depth] as number;
      const op = ops[pc] as number;
      let target = -1;
      let alternative = -1;
      switch (op & OPERATION) {
        case MATCH:
          this.cost += visited;
          return true;
        case JUMP:
          target = targets[pc] as number;
          break;
        case FORK:
          target = pc + 1;
          alternative = targets[pc] as number;
          break;
        case BEGIN:
          if (at === 0) target = pc + 1;
          break;
        case END:
          if (at === text.length) target = pc + 1;
          break;
        case BOUNDARY:
          if (isBoundary(text, at)) target = pc + 1;
          break;
        case NON_BOUNDARY:
          if (!isBoundary(text, at)) target = pc + 1;
          break;
        default:
          nextThreads[count] = pc;
          count += 1;
          if ((op & SKIP) !== 0) target = targets[pc] as number;
      }
      if (target >= 0 && entered[target] !== generation) {
        entered[target] = generation;
        pending[depth] = target;
        depth += 1;
      }
      if (alternative >= 0 && entered[alternative] !== generation) {
        entered[alternative] = generation;
        pending[depth] = alternative;
        depth += 1;
      }
    }
    this.nextCount = count;
    this.cost += visited;
    return false;
  }
}
