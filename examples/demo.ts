/**
 * `npm run demo`: a real end-to-end run with no API key, across a real restart. This process
 * spawns the workbench MCP server over stdio, imports its tools under the `strict` preset and
 * runs an agent on the scripted model with a file journal in a temp dir. The agent's write
 * asks for approval, so the run suspends; the approval is resolved (by this script, or by you
 * with `npm run demo -- --interactive`), and a second Node process resumes the run from the
 * journal alone (examples/demo/resume.ts). The counts at the end show that no model turn was
 * requested twice and no tool ran twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@rulvar/core/node';
import { PRESET, closeNotes, demoModel, engineOptions, notes, printTable, shopping, verdictOf, watch } from './demo/setup.js';

const interactive = process.argv.includes('--interactive');
const dir = await mkdtemp(path.join(tmpdir(), 'rulvar-demo-'));
const model = demoModel();
const ran = { count: 0 };

try {
  const tools = await notes().tools();
  console.log(`Imported ${tools.length} tools from ${notes().id}, and what a call of each gets under the preset '${PRESET}':\n`);
  const verdicts = await Promise.all(tools.map((t) => verdictOf(t)));
  printTable(['name', 'risk', 'needsApproval', `verdict (${PRESET})`], tools.map((t, i) => [t.name, t.risk ?? '(undeclared)', String(t.needsApproval), verdicts[i] ?? '']));

  console.log(`\nProcess 1 (pid ${process.pid}) runs the agent, journal in ${dir}:`);
  const engine = createEngine(engineOptions(dir, model));
  const first = await watch('process 1', engine.run(shopping, null), ran).result;
  if (first.status !== 'suspended') throw new Error(`expected the run to suspend, got ${first.status}`);
  const [approval] = await engine.pending(first.approvals[0]?.runId ?? '');
  if (approval === undefined) throw new Error('the suspended run lists no pending approval');
  console.log(`\nRun ${approval.runId} suspended. Pending: ${approval.toolName} ${JSON.stringify(approval.input)}`);
  console.log(`  why: ${approval.audit.reason}`);
  console.log(`  key: ${approval.key}`);
  console.log(`Model calls in process 1: ${model.calls}`);

  const { decision, reason } = interactive ? await askAtTerminal() : { decision: 'allow' as const, reason: 'the list is fine' };
  const resolved = await engine.resolveExternal(approval.runId, approval.key, decision, { by: 'operator', reason });
  console.log(`Resolution journaled: ${decision} by operator ("${reason}"): ${resolved}`);
  await closeNotes();

  const resume = fileURLToPath(new URL('./demo/resume.ts', import.meta.url));
  console.log('\nProcess 1 exits its part here; a new process resumes the run from the journal.');
  const code = await new Promise<number | null>((done) =>
    spawn(process.execPath, ['--import', 'tsx', resume, dir, approval.runId, String(model.calls), String(ran.count)], { stdio: 'inherit' }).on('exit', done),
  );
  if (code !== 0) throw new Error(`the resuming process exited with ${code}`);
} finally {
  await closeNotes();
  await rm(dir, { recursive: true, force: true });
}

async function askAtTerminal(): Promise<{ decision: 'allow' | 'deny'; reason: string }> {
  // Lines are read through the iterator, which keeps those typed (or piped) ahead of a prompt.
  const terminal = createInterface({ input: process.stdin, terminal: false });
  const lines = terminal[Symbol.asyncIterator]();
  const ask = async (prompt: string) => {
    process.stdout.write(prompt);
    const line = await lines.next();
    return line.done === true ? '' : String(line.value).trim();
  };
  try {
    const decision = /^y(es)?$/i.test(await ask('\nAllow this call? [y/N] ')) ? 'allow' : 'deny';
    const reason = (await ask('Reason (shown to the model): ')) || (decision === 'allow' ? 'approved at the terminal' : 'denied at the terminal');
    return { decision, reason };
  } finally {
    terminal.close();
  }
}
