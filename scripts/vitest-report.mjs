// What a red gate needs at its end, from vitest's JSON report: each failed test (file, name,
// the first lines of its error) and the slowest files. The main lane prints thousands of lines
// before the Node 22/24 lane's output and the timing table; without this recap the one line
// that failed is far above the end of a CI log, or cut from it.
//   node scripts/vitest-report.mjs <report.json> [slowest=10]
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [reportPath, slowestArg = '10'] = process.argv.slice(2);
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch {
  console.log(`vitest wrote no report at ${reportPath} (it crashed or did not start)`);
  process.exit(1);
}

const root = process.cwd();
const name = (file) => path.relative(root, file.name);
const firstLines = (text, count) => String(text).split('\n').slice(0, count).join('\n      ');

const failures = [];
for (const file of report.testResults) {
  const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
  for (const test of failedTests) {
    failures.push(`  ${name(file)} > ${test.fullName}\n      ${firstLines(test.failureMessages?.[0] ?? '', 4)}`);
  }
  // A file that failed to load (an import error, a hook timeout) has no failed test to show.
  if (file.status === 'failed' && failedTests.length === 0) {
    failures.push(`  ${name(file)} (the file itself)\n      ${firstLines(file.message ?? '', 4)}`);
  }
}
console.log(failures.length === 0 ? 'no failed test' : `${failures.length} failed:\n${failures.join('\n')}`);

const slowest = [...report.testResults]
  .map((file) => ({ file: name(file), ms: (file.endTime ?? 0) - (file.startTime ?? 0) }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, Number(slowestArg));
console.log('slowest files:');
for (const { file, ms } of slowest) console.log(`  ${String(Math.round(ms / 1000)).padStart(5)} s  ${file}`);
process.exit(failures.length === 0 ? 0 : 1);
