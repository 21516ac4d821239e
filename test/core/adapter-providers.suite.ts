/** The provider adapters' shared cases: each wire format, then the failures and secret hygiene both share (errors and answers). */
import { adapterAiSdkSuite } from './adapter-ai-sdk.suite.js';
import { adapterAnthropicSuite } from './adapter-anthropic.suite.js';
import { adapterBoundsSuite } from './adapter-bounds.suite.js';
import { adapterEchoesSuite } from './adapter-echoes.suite.js';
import { adapterFailuresSuite } from './adapter-failures.suite.js';
import { adapterOpenAISuite } from './adapter-openai.suite.js';
import { adapterReadsSuite } from './adapter-reads.suite.js';
import { adapterRedirectsSuite } from './adapter-redirects.suite.js';
import { adapterSecretsSuite } from './adapter-secrets.suite.js';
import type { SuiteHarness } from './harness.js';

export function adapterSuite(h: SuiteHarness): void {
  adapterAnthropicSuite(h);
  adapterOpenAISuite(h);
  adapterFailuresSuite(h);
  adapterBoundsSuite(h);
  adapterSecretsSuite(h);
  adapterEchoesSuite(h);
  adapterReadsSuite(h);
  adapterRedirectsSuite(h);
  adapterAiSdkSuite(h);
}
