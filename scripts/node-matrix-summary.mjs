// One summary line for one Node version of scripts/node-matrix.sh, from vitest's JSON report.
// Exits 1 when a test failed, or when a file the matrix exists to prove did not run in full:
// those files skip themselves without RULVAR_TEST_DIST=1, and a skip must not read as a pass.
//   node scripts/node-matrix-summary.mjs <report.json> <version> <seconds>
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [reportPath, version, seconds] = process.argv.slice(2);

// The built package, the examples as users run them, the CLI, and the check that the
// workers and their children really run this version (test/node/node-versions.test.ts).
const MUST_RUN = ['dist.test.ts', 'examples.test.ts', 'adapters-examples.test.ts', 'cli.test.ts', 'node-versions.test.ts'];

let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch {
  console.log(`node-matrix: Node ${version}: vitest wrote no report (it crashed or did not start) after ${seconds} s`);
  process.exit(1);
}

const count = (status) => report.testResults.flatMap((file) => file.assertionResults).filter((test) => test.status === status).length;
const failed = count('failed');
const problems = [];
if (failed > 0 || !report.success) problems.push(`${failed} failed`);
for (const name of MUST_RUN) {
  const file = report.testResults.find((result) => path.basename(result.name) === name);
  const tests = file?.assertionResults ?? [];
  if (tests.length === 0 || tests.some((test) => test.status !== 'passed')) problems.push(`${name} did not run in full`);
}

const files = report.testResults.length;
console.log(
  `node-matrix: Node ${version}: vitest node project ${problems.length === 0 ? 'PASSED' : 'FAILED'}: ` +
    `${count('passed')} passed, ${failed} failed, ${count('pending') + count('skipped') + count('todo')} skipped, ${files} files, ${seconds} s` +
    (problems.length === 0 ? '' : ` (${problems.join('; ')})`),
);
process.exit(problems.length === 0 ? 0 : 1);
