/**
 * The order the mutation run (`npm run mutate`) starts a mutant's test files in: the unit
 * files first, the shared suites and the JSON Schema Test Suite after. Stryker stops at a
 * mutant's first failing test, so the order decides what a killed mutant costs. Vitest's own
 * sequencer starts the longest file first, and a file that failed for one mutant before all
 * others for the next: that was the core suite, whose covering tests run for seconds, while
 * a unit file that would fail at once waited behind it. Survivors run everything either way.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const isUnitFile = (spec: TestSpecification): boolean => /-units\.test\.ts$/.test(spec.moduleId);

export default class UnitsFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byName = [...files].sort((a, b) => (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
    return Promise.resolve([...byName.filter(isUnitFile), ...byName.filter((spec) => !isUnitFile(spec))]);
  }
}
