/**
 * The shared core suite: written once, run by every runtime project (Node, Chromium and
 * workerd) against the entry that runtime imports. Each part is its own file.
 */
import { adapterSuite } from './adapter-providers.suite.js';
import { attestationSuite } from './attestation.suite.js';
import { boundsSuite } from './bounds.suite.js';
import { byteSizeSuite } from './byte-size.suite.js';
import { canonicalJsonSuite } from './canonical-json.suite.js';
import { chainSuite } from './chain.suite.js';
import { configSuite } from './config.suite.js';
import { dispatchSuite } from './dispatch.suite.js';
import { domainsSuite } from './domains.suite.js';
import { durableObjectJournalSuite } from './durable-object-journal.suite.js';
import { engineDeadlinesSuite } from './engine-deadlines.suite.js';
import { engineDurableSuite } from './engine-durable.suite.js';
import { engineFrozenSuite } from './engine-frozen.suite.js';
import { engineIdempotencySuite } from './engine-idempotency.suite.js';
import { engineLoopSuite } from './engine-loop.suite.js';
import type { SuiteHarness } from './harness.js';
import { hashSuite } from './hash.suite.js';
import { hostileWireSuite } from './hostile-wire.suite.js';
import { httpSuite } from './http.suite.js';
import { importSuite } from './import.suite.js';
import { importedPolicySuite } from './imported-policy.suite.js';
import { lifecycleSuite } from './lifecycle.suite.js';
import { oauthSuite } from './oauth.suite.js';
import { patternSuite } from './pattern.suite.js';
import { permissionConfigSuite } from './permission-config.suite.js';
import { permissionReasonsSuite } from './permission-reasons.suite.js';
import { permissionsSuite } from './permissions.suite.js';
import { resolveRefusalsSuite } from './resolve-refusals.suite.js';
import { schemaSuite } from './schema.suite.js';
import { secretFormsSuite } from './secret-forms.suite.js';
import { secretsSuite } from './secrets.suite.js';
import { sha256Suite } from './sha256.suite.js';
import { sweepSuite } from './sweep.suite.js';
import { toolDefSuite } from './tool-def.suite.js';
import { toolsetSuite } from './toolset.suite.js';
import { validationBudgetSuite } from './validation-budget.suite.js';

export function coreSuite(h: SuiteHarness): void {
  configSuite(h);
  importSuite(h);
  sweepSuite(h);
  httpSuite(h);
  lifecycleSuite(h);
  boundsSuite(h);
  byteSizeSuite(h);
  schemaSuite(h);
  patternSuite(h);
  validationBudgetSuite(h);
  permissionsSuite(h);
  chainSuite(h);
  permissionReasonsSuite(h);
  importedPolicySuite(h);
  permissionConfigSuite(h);
  domainsSuite(h);
  canonicalJsonSuite(h);
  hashSuite(h);
  sha256Suite(h);
  attestationSuite(h);
  toolDefSuite(h);
  toolsetSuite(h);
  resolveRefusalsSuite(h);
  dispatchSuite(h);
  hostileWireSuite(h);
  secretsSuite(h);
  secretFormsSuite(h);
  engineLoopSuite(h);
  engineDurableSuite(h);
  engineFrozenSuite(h);
  engineDeadlinesSuite(h);
  engineIdempotencySuite(h);
  durableObjectJournalSuite(h);
  oauthSuite(h);
  adapterSuite(h);
}
