/**
 * Process 2 of `npm run demo`: a fresh Node process that knows only the journal directory and
 * the run id. It resumes the run (journaled turns and results replay without a model call or
 * a tool run), prints its own calls, then the audit table the journal holds and the counts
 * across both processes.
 */
import { rm } from 'node:fs/promises';
import process from 'node:process';
import { createEngine, fileJournal } from '@rulvar/core/node';
import { auditRows, closeNotes, demoModel, engineOptions, printTable, shopping, watch } from './setup.js';

const [dir, runId, callsBefore, runsBefore] = process.argv.slice(2);
if (dir === undefined || runId === undefined) throw new Error('usage: resume.ts <journal dir> <run id> <model calls before> <tool runs before>');
const model = demoModel();
const ran = { count: 0 };

try {
  console.log(`\nProcess 2 (pid ${process.pid}) resumes run ${runId}:`);
  const resumed = await watch('process 2', createEngine(engineOptions(dir, model)).resume(runId, shopping), ran).result;
  if (resumed.status !== 'completed') throw new Error(`expected the run to complete, got ${resumed.status}`);
  const entries = await fileJournal({ dir }).load(runId);

  console.log('\nAudit trail (from the journal; turns count from 1):');
  printTable(['turn', 'tool', 'decided', 'result'], auditRows(entries));
  console.log(`\nResult: ${JSON.stringify(resumed.value)}`);
  const calls = [Number(callsBefore), model.calls];
  const runs = [Number(runsBefore), ran.count];
  const turns = entries.filter((e) => e.type === 'turn').length;
  // A denied call or one refused for its input is journaled with its error result, but it never ran.
  const results = entries.filter((e) => e.type === 'tool' && e.result.reason !== 'denied' && e.result.reason !== 'invalid_input').length;
  const sum = (pair: number[]) => pair.reduce((a, b) => a + b, 0);
  console.log(`Model calls: ${calls.join(' + ')} = ${sum(calls)} for ${turns} journaled turns (${sum(calls) === turns ? 'none requested twice' : 'SOME REQUESTED TWICE'}).`);
  console.log(`Tool runs: ${runs.join(' + ')} = ${sum(runs)} for ${results} journaled ${results === 1 ? 'result of a call' : 'results of calls'} that ran (${sum(runs) === results ? 'none run twice' : 'SOME RUN TWICE'}).`);
} finally {
  await closeNotes();
  await rm(dir, { recursive: true, force: true });
}
