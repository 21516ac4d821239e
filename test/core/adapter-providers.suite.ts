/** The provider adapters' shared cases: each wire format, then the failures and secret hygiene both share. */
import { adapterAnthropicSuite } from './adapter-anthropic.suite.js';
import { adapterFailuresSuite } from './adapter-failures.suite.js';
import { adapterOpenAISuite } from './adapter-openai.suite.js';
import { adapterSecretsSuite } from './adapter-secrets.suite.js';
import type { SuiteHarness } from './harness.js';

export function adapterSuite(h: SuiteHarness): void {
  adapterAnthropicSuite(h);
  adapterOpenAISuite(h);
  adapterFailuresSuite(h);
  adapterSecretsSuite(h);
}
