/** stdio against real child processes: this repo's servers and the registry's reference server. */
import { spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { mcp, type ToolDef } from '../../src/node/index.js';
import { expectSourceError, pick, run } from '../core/helpers.js';
import type { SuiteHarness } from '../core/harness.js';
import { EVERYTHING, PROBE, WORKBENCH, isAlive, pidsWith, reap, tsServer, waitGone } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node' } as SuiteHarness;
const leftovers: number[] = [];
afterEach(() => leftovers.splice(0).forEach(reap));

async function pidOf(tools: ToolDef[]): Promise<number> {
  const result = await run(h, pick(tools, 'whoami'), {});
  return (JSON.parse(String(result.output)) as { pid: number }).pid;
}

describe('stdio', () => {
  it('imports and calls this repo workbench server over a real child process', async () => {
    await using source = mcp({ transport: 'stdio', ...tsServer(WORKBENCH), prefix: 'wb', risk: { add_note: 'write' } });
    const tools = await source.tools();
    expect(tools.map((t) => t.name)).toContain('wb_add_note');
    expect(pick(tools, 'wb_add_note').risk).toBe('write');
    expect(await run(h, pick(tools, 'wb_add_note'), { title: 'a', body: 'b' })).toMatchObject({
      isError: false,
      output: { title: 'a', count: 1 },
    });
  });

  it('imports @modelcontextprotocol/server-everything and maps its results', async () => {
    await using source = mcp({ transport: 'stdio', command: EVERYTHING, args: ['stdio'], stderr: 'ignore' });
    const tools = await source.tools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    expect(await run(h, pick(tools, 'echo'), { message: 'hi' })).toMatchObject({ isError: false, output: 'Echo: hi' });
    const image = await run(h, pick(tools, 'get-tiny-image'), {});
    const parts = image.output as { type: string }[];
    expect(parts.map((p) => p.type)).toContain('image');
    expect(parts.filter((p) => p.type === 'text').length).toBeGreaterThan(0);
    const structured = await run(h, pick(tools, 'get-structured-content'), { location: 'New York' });
    expect(structured.isError).toBe(false);
    expect(typeof structured.output).toBe('object');
  });

  it('passes env on top of a minimal inherited environment, and cwd', async () => {
    process.env['RULVAR_HOST_SECRET'] = 'do-not-pass';
    try {
      await using source = mcp({ transport: 'stdio', ...tsServer(PROBE), env: { PROBE_FLAG: 'on' }, cwd: '/tmp' });
      const result = await run(h, pick(await source.tools(), 'whoami'), {});
      const report = JSON.parse(String(result.output)) as { cwd: string; env: Record<string, string> };
      expect(report.cwd).toBe('/tmp');
      expect(report.env['PROBE_FLAG']).toBe('on');
      expect(report.env['PATH']).toBe(process.env['PATH']);
      expect(report.env['RULVAR_HOST_SECRET']).toBeUndefined();
    } finally {
      delete process.env['RULVAR_HOST_SECRET'];
    }
  });

  it('hands stderr to a callback when given one', async () => {
    const chunks: string[] = [];
    await using source = mcp({ transport: 'stdio', ...tsServer(PROBE), stderr: (chunk) => chunks.push(chunk) });
    await run(h, pick(await source.tools(), 'shout'), { line: 'hello from stderr' });
    await expect.poll(() => chunks.join('')).toContain('hello from stderr');
  });

  it('a command that does not exist fails tools() typed and close() still resolves', async () => {
    const source = mcp({ transport: 'stdio', command: 'rulvar-no-such-command-xyz' });
    const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
    expect(message).toContain('ENOENT');
    await source.close();
  });

  it('a server that exits during the handshake fails tools() typed, promptly', async () => {
    const started = Date.now();
    await using source = mcp({ transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] });
    const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
    expect(message).toContain('exited (code 3)');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('close() ends the child and the grandchild it started (the npx case)', async () => {
    const source = mcp({ transport: 'stdio', ...tsServer(PROBE) });
    const tools = await source.tools();
    const child = await pidOf(tools);
    const grand = JSON.parse(String((await run(h, pick(tools, 'spawn_grandchild'), { ignoreTerm: false })).output)) as { pid: number };
    leftovers.push(child, grand.pid);
    expect(isAlive(grand.pid)).toBe(true);
    await source.close();
    expect(await waitGone(child, 1_000)).toBe(true);
    expect(await waitGone(grand.pid, 1_000)).toBe(true);
  });

  it('close() ends a child and grandchild that ignore SIGTERM, within its bound', async () => {
    const source = mcp({ transport: 'stdio', ...tsServer(PROBE, '--ignore-term') });
    const tools = await source.tools();
    const child = await pidOf(tools);
    const grand = JSON.parse(String((await run(h, pick(tools, 'spawn_grandchild'), { ignoreTerm: true })).output)) as { pid: number };
    leftovers.push(child, grand.pid);
    const started = Date.now();
    await source.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitGone(child, 1_000)).toBe(true);
    expect(await waitGone(grand.pid, 1_000)).toBe(true);
  });

  it('close() during the handshake fails tools() as source.closed and leaves no child', async () => {
    const marker = `--tag=${crypto.randomUUID()}`;
    const source = mcp({ transport: 'stdio', ...tsServer(PROBE, '--slow-start=1500', marker) });
    const pending = source.tools();
    await expect.poll(() => pidsWith(marker).length).toBe(1);
    await source.close();
    await expectSourceError(h, () => pending, 'source.closed');
    expect(pidsWith(marker)).toEqual([]);
  });

  it('a crash mid-call is an unavailable result; the next call starts a new child', async () => {
    await using source = mcp({ transport: 'stdio', ...tsServer(PROBE), stderr: 'ignore' });
    const tools = await source.tools();
    const first = await pidOf(tools);
    leftovers.push(first);
    const started = Date.now();
    expect(await run(h, pick(tools, 'crash'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(3_000);
    const second = await pidOf(tools);
    leftovers.push(second);
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);
  });

  it('a one-shot script that closes its source exits on its own', async () => {
    const script = fileURLToPath(new URL('./fixtures/one-shot.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the one-shot script did not exit within 20 s'));
      }, 20_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    const grand = JSON.parse(JSON.parse(out.trim()).content?.[0]?.text ?? out.trim()) as { pid: number };
    expect(await waitGone(grand.pid, 1_000)).toBe(true);
  }, 30_000);
});
