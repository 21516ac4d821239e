/**
 * vitest globalSetup of the node project: one PostgreSQL server per test run, started by the
 * first test file that asks for it (postgres-shared.ts) so a run without Postgres tests
 * starts none, and stopped here at the end of the run, failed or not. The watchdog of
 * postgres-server.ts stops it too if this process dies before its teardown.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopRecorded, type ServerRecord } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's shared server is recorded, and the process that owns it. */
    rulvarPostgres: { readonly state: string; readonly ownerPid: number };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = await mkdtemp(path.join(os.tmpdir(), 'rulvar-pg-state-'));
  project.provide('rulvarPostgres', { state, ownerPid: process.pid });
  return async () => {
    const recorded = path.join(state, 'server.json');
    if (existsSync(recorded)) await stopRecorded(JSON.parse(readFileSync(recorded, 'utf8')) as ServerRecord);
    await rm(state, { recursive: true, force: true });
  };
}
