/**
 * The shared core suite: written once, run by every runtime project (Node, Chromium and
 * workerd) against the entry that runtime imports. Each part is its own file.
 */
import { adapterSuite } from './adapter-providers.suite.js';
import { adapterStreamSuite } from './adapter-stream.suite.js';
import { attestationSuite } from './attestation.suite.js';
import { boundsSuite } from './bounds.suite.js';
import { byteSizeSuite } from './byte-size.suite.js';
import { callPathSuite } from './call-path.suite.js';
import { canonicalJsonSuite } from './canonical-json.suite.js';
import { canonicalFastSuite } from './canonical-fast.suite.js';
import { chainSuite } from './chain.suite.js';
import { configSuite } from './config.suite.js';
import { contractMemoSuite } from './contract-memo.suite.js';
import { dispatchSuite } from './dispatch.suite.js';
import { domainsSuite } from './domains.suite.js';
import { durableObjectJournalSuite } from './durable-object-journal.suite.js';
import { engineBoundsSuite } from './engine-bounds.suite.js';
import { fakeDurableObjectStorage } from './durable-object-storage-fake.js';
import { engineDeadlinesSuite } from './engine-deadlines.suite.js';
import { engineDurableSuite } from './engine-durable.suite.js';
import { engineFrozenSuite } from './engine-frozen.suite.js';
import { engineIdempotencySuite } from './engine-idempotency.suite.js';
import { engineLeasesSuite } from './engine-leases.suite.js';
import { engineLoopSuite } from './engine-loop.suite.js';
import { engineTracesSuite } from './engine-traces.suite.js';
import { engineStreamSuite } from './engine-stream.suite.js';
import type { SuiteHarness } from './harness.js';
import { hashSuite } from './hash.suite.js';
import { hostileWireSuite } from './hostile-wire.suite.js';
import { httpSuite } from './http.suite.js';
import { importSuite } from './import.suite.js';
import { importedPolicySuite } from './imported-policy.suite.js';
import { journalContractSuite } from './journal-contract.suite.js';
import { engineFleetSuite } from './engine-fleet.suite.js';
import { lifecycleSuite } from './lifecycle.suite.js';
import { oauthSuite } from './oauth.suite.js';
import { patternSuite } from './pattern.suite.js';
import { permissionConfigSuite } from './permission-config.suite.js';
import { malformedAnswersSuite } from './malformed-answers.suite.js';
import { permissionReasonsSuite } from './permission-reasons.suite.js';
import { permissionsSuite } from './permissions.suite.js';
import { progressSuite } from './progress.suite.js';
import { resolveFastSuite } from './resolve-fast.suite.js';
import { resolveRefusalsSuite } from './resolve-refusals.suite.js';
import { resultCapSuite } from './result-cap.suite.js';
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
  canonicalFastSuite(h);
  resolveFastSuite(h);
  contractMemoSuite(h);
  hashSuite(h);
  sha256Suite(h);
  attestationSuite(h);
  toolDefSuite(h);
  toolsetSuite(h);
  resolveRefusalsSuite(h);
  dispatchSuite(h);
  resultCapSuite(h);
  callPathSuite(h);
  progressSuite(h);
  malformedAnswersSuite(h);
  hostileWireSuite(h);
  secretsSuite(h);
  secretFormsSuite(h);
  engineLoopSuite(h);
  engineDurableSuite(h);
  engineFrozenSuite(h);
  engineDeadlinesSuite(h);
  engineIdempotencySuite(h);
  engineBoundsSuite(h);
  engineLeasesSuite(h);
  engineTracesSuite(h);
  engineStreamSuite(h);
  engineFleetSuite(h);
  journalStores(h);
  durableObjectJournalSuite(h);
  oauthSuite(h);
  adapterSuite(h);
  adapterStreamSuite(h);
}

/** The JournalStore contract for the stores every runtime has; each says what it has by having it. */
function journalStores(h: SuiteHarness): void {
  const { memoryJournal, durableObjectJournal } = h.lib;
  const has = (store: ReturnType<typeof memoryJournal>) => ({ lease: typeof store.claim === 'function', runs: typeof store.runs === 'function' });
  journalContractSuite(h, 'memoryJournal', {
    open: () => {
      const store = memoryJournal();
      return { store, twin: () => store };
    },
  }, has(memoryJournal()));
  journalContractSuite(h, 'durableObjectJournal over the storage fake', {
    open: () => {
      const storage = fakeDurableObjectStorage();
      return { store: durableObjectJournal(storage), twin: () => durableObjectJournal(storage), snapshot: () => new Map(storage.data) };
    },
  }, has(durableObjectJournal(fakeDurableObjectStorage())));
}
