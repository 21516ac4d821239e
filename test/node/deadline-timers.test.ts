/**
 * Deadline timers never keep a Node process alive on their own: a host whose work is done
 * exits even while a live run waits for an approval deadline (the deadline is journaled, and
 * `resume` or `pending` apply it later).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/deadline-parked.ts');

function runChild(deadlineMs: number): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, String(deadlineMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, ms: Date.now() - started })));
}

describe('deadline timers', () => {
  it('a process with a parked approval due in 60 s exits once nothing else is left', async () => {
    const { code, out, ms } = await runChild(60_000);
    expect(code).toBe(0);
    expect(out).toBe('parked\nexit\n');
    // tsx startup is ~1-2 s here; a timer holding the process would take the whole minute.
    expect(ms).toBeLessThan(20_000);
  }, 30_000);
});
