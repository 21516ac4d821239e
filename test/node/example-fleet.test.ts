/**
 * examples/fleet runs as docs/fleet.md says, on the test run's PostgreSQL: three worker
 * processes and an approver; the first worker is SIGKILLed once its runs have asked; every run
 * still finishes with the answer its decision calls for, each allowed refund ran (more than
 * once only with the same idempotency key, which only a kill between the refund and its
 * journaled result can cause), the denied one never, and every process exits.
 */
import { execFile } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freshTable, sharedPostgresUrl, withSharedServer } from './postgres-shared.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env['RULVAR_TEST_DIST'] === '1';

withSharedServer();

describe.runIf(enabled)('examples/fleet', () => {
  it('three workers and an approver on one Postgres finish every run, a worker killed midway', async () => {
    const env = { ...process.env, DATABASE_URL: await sharedPostgresUrl(), FLEET_TABLE: freshTable() };
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/fleet/main.ts'], { cwd: root, env, timeout: 90_000 });
    const answers = stdout.split('\n').filter((l) => l.startsWith('main: Order'));
    expect(answers).toEqual([
      'main: Order A1: refunded 20.',
      'main: Order A2: refunded 40.',
      'main: Order A3: refunded 60.',
      'main: Order A4: refunded 80.',
      'main: Order A5: refunded 100.',
      'main: Order A6: the refund was not approved.',
    ]);
    expect(stdout).toContain('main: worker-1 was killed (SIGKILL); the other workers finish its runs');
    for (const order of ['A1', 'A2', 'A3', 'A4', 'A5']) {
      const keys = [...stdout.matchAll(new RegExp(`refunded ${order} \\(\\d+\\) key (\\S+)`, 'g'))].map((m) => m[1]);
      expect({ order, runs: keys.length >= 1 && keys.length <= 2, oneKey: new Set(keys).size }).toEqual({ order, runs: true, oneKey: 1 });
    }
    expect(stdout).not.toContain('refunded A6');
    expect(stdout.match(/^approver: allow refund/gm)).toHaveLength(5);
    expect(stdout.match(/^approver: deny refund/gm)).toHaveLength(1);
    expect(stdout.match(/^worker-[23] stopped$/gm)).toHaveLength(2);
  }, 120_000);
});
