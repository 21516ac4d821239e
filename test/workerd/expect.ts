/**
 * vitest's own `expect`, assembled for a Worker. `@vitest/expect` is the chai plugin set that
 * vitest registers; wiring it to chai here (instead of writing look-alike matchers) means the
 * suite gets the same matchers, the same diffs and the same `.resolves`/`.rejects` semantics
 * in workerd as in Node and Chromium. Neither package needs eval or Node builtins, which the
 * workerd project proves each run by executing this bundle with codegen disallowed.
 */
import {
  ASYMMETRIC_MATCHERS_OBJECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  chai,
  customMatchers,
  getState,
  setState,
} from '@vitest/expect';
import type { ExpectStatic, MatcherState, MatchersObject } from '@vitest/expect';

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

/** The subset of vitest's `createExpect` that makes sense without a test runner around it. */
export function createExpect(): ExpectStatic {
  const expect = ((value: unknown, message?: string) => {
    const { assertionCalls } = getState(expect);
    setState({ assertionCalls: assertionCalls + 1 }, expect);
    return chai.expect(value, message);
  }) as ExpectStatic;

  Object.assign(expect, chai.expect);
  // expect.any(), expect.objectContaining() and the other asymmetric matchers.
  Object.assign(expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
  expect.getState = () => getState(expect);
  expect.setState = (state: Partial<MatcherState>) => setState(state, expect);
  setState(
    {
      assertionCalls: 0,
      isExpectingAssertions: false,
      isExpectingAssertionsError: null,
      expectedAssertionsNumber: null,
      expectedAssertionsNumberErrorGen: null,
      testPath: 'workerd',
      currentTestName: '',
    },
    expect,
  );
  // JestExtend adds `extend(target, matchers)` to chai.expect at run time; chai's types lack it.
  const chaiExpect = chai.expect as unknown as {
    extend(target: ExpectStatic, matchers: MatchersObject): void;
  };
  expect.extend = (matchers) => chaiExpect.extend(expect, matchers);
  expect.unreachable = (message?: string) => {
    chai.assert.fail(`expected${message ? ` "${message}" ` : ' '}not to be reached`);
  };
  // toBeOneOf, toSatisfy and the rest of vitest's extra matchers.
  expect.extend(customMatchers);
  return expect;
}
