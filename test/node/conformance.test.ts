/**
 * The MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) against the
 * library's conformance client (test/conformance/client.ts), one test per scenario and
 * revision of test/conformance/scenarios.json: every client scenario in scope for a
 * tools-only, OAuth-capable client. The suite needs Node 22+, so it runs on the pinned Node 24
 * (scripts/ensure-node.sh) whatever Node runs vitest, and only once per gate: not again in the
 * node-matrix passes (which set RULVAR_NODE_EXPECTED), where it would run the same binary.
 * A scenario passes when the suite saw checks and none of them failed or warned.
 * scripts/conformance.sh runs the same list outside vitest.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node24 = process.env['RULVAR_NODE_24_BIN'] ?? path.join(process.env['RULVAR_NODE_CACHE'] ?? path.join(process.env['XDG_CACHE_HOME'] ?? path.join(homedir(), '.cache'), 'rulvar-node'), '24.22.3/bin/node');
const suite = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const scenarios = JSON.parse(readFileSync(path.join(root, 'test/conformance/scenarios.json'), 'utf8')) as [string, string][];
const enabled = existsSync(node24) && process.env['RULVAR_NODE_EXPECTED'] === undefined;

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  readonly errorMessage?: string;
}

const out = await mkdtemp(path.join(tmpdir(), 'rulvar-conformance-'));
afterAll(() => rm(out, { recursive: true, force: true }));

/**
 * The client, bundled once with the library's sources (its packages left to node_modules,
 * which is why it is written inside the project): started through tsx, each of the 110
 * processes spent most of its time compiling the same TypeScript again.
 */
const client = path.join(root, 'node_modules/.cache/rulvar-conformance/client.mjs');
if (enabled) {
  await build({ entryPoints: [path.join(root, 'test/conformance/client.ts')], outfile: client, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning' });
}

function runScenario(scenario: string, version: string): Promise<{ checks: Check[]; log: string }> {
  const dir = path.join(out, `${scenario.replace(/\//g, '_')}@${version}`);
  const at = version === 'extension' ? [] : ['--spec-version', version];
  const args = [suite, 'client', '--command', `${node24} ${client}`, '--scenario', scenario, ...at, '--output-dir', dir];
  return new Promise((resolve) => {
    execFile(node24, args, { cwd: root, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (_error, stdout, stderr) => {
      // The suite nests a scenario's results under its name (auth/x: auth/x-<time>/checks.json).
      const found = existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).find((file) => path.basename(file) === 'checks.json') : undefined;
      const checks = found === undefined ? [] : (JSON.parse(readFileSync(path.join(dir, found), 'utf8')) as Check[]);
      resolve({ checks, log: `${stdout}\n${stderr}`.slice(-4_000) });
    });
  });
}

/**
 * Scenarios run three at a time: each is two short-lived processes that mostly wait on each
 * other over loopback (the suite's servers listen on port 0), so one at a time left a core
 * idle for minutes of the gate. The execFile timeout bounds each scenario; the test's own
 * timeout also covers its wait for a slot.
 */
const SCENARIOS_AT_ONCE = 3;
let running = 0;
const waiting: (() => void)[] = [];
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  // A finished scenario hands its slot straight to the next in line, so `running` never passes the limit.
  if (running >= SCENARIOS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  }
}

describe.runIf(enabled)('the MCP conformance suite, client scenarios (Node 24)', () => {
  for (const [scenario, version] of scenarios) {
    it.concurrent(`${scenario} at ${version}`, async () => {
      const { checks, log } = await inSlot(() => runScenario(scenario, version));
      expect(checks.length, log).toBeGreaterThan(0);
      const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING').map((check) => `${check.id}: ${check.errorMessage ?? check.status}`);
      expect(bad, log).toEqual([]);
    }, 600_000);
  }
});
