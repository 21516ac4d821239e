/**
 * The order vitest starts test files in. Its own sequencer puts the longest files first only
 * from the timings it cached on an earlier run; a clean clone (every CI run) has none, so the
 * two workers could meet the longest files last and one worker would run alone at the end.
 * These are the files that take 20 s or more (measured in a gate run: test/workerd/core.test.ts
 * ran about 80 s, test/node/core.test.ts about 105 s); they start first, longest first, and
 * everything else follows in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_FIRST = [
  'test/node/core.test.ts',
  'test/workerd/core.test.ts',
  'test/node/conformance.test.ts',
  'test/node/stdio.test.ts',
  'test/node/modern-stdio.test.ts',
  'test/node/hostile-stdio.test.ts',
  'test/node/core-modern.test.ts',
  'test/node/fleet-chaos.test.ts',
  'test/node/cli.test.ts',
  'test/node/examples.test.ts',
  'test/node/progress-stdio.test.ts',
];

function rank(spec: TestSpecification): number {
  const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(file));
  return index === -1 ? LONGEST_FIRST.length : index;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}
