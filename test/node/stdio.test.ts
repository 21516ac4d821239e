/**
 * stdio against real child processes: this repo's servers and the registry's reference server.
 * close() is timed step by step (when stdin reached EOF, when each signal went out) rather
 * than end to end, which mostly measures how soon a busy machine schedules dying processes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mcp, type ToolDef } from '../../src/node/index.js';
import { expectHonoured, expectSourceError, pick, run, within } from '../core/helpers.js';
import type { SuiteHarness } from '../core/harness.js';
import { EVERYTHING, PROBE, WORKBENCH, isAlive, pidsWith, reap, tsServer, waitGone } from './process-helpers.js';

const h = { describe, it, expect, lib: await import('../../src/node/index.js'), runtime: 'node', wires: [] } as SuiteHarness;
const GROUP_WRAPPER = fileURLToPath(new URL('./fixtures/group-wrapper.ts', import.meta.url));
const CLOSE_WITNESS = fileURLToPath(new URL('./fixtures/close-witness.mjs', import.meta.url));
/**
 * The steps of close() in process-group.ts, which README sums up as "each step bounded (≤ 4 s
 * in total)": stdin EOF and GRACE_MS for the server to exit, SIGTERM and TERM_MS, SIGKILL and
 * up to KILL_MS for the group to go. A group whose leader exited gets ORPHAN_TERM_MS between
 * SIGTERM and SIGKILL (README: "SIGTERM, 0.5 s, SIGKILL").
 */
const GRACE_MS = 1_000;
const TERM_MS = 2_000;
const KILL_MS = 1_000;
const ORPHAN_TERM_MS = 500;
/** Starting a server under tsx on a busy machine; far below the SDK's 60 s request timeout. */
const START_MS = 10_000;
const leftovers: number[] = [];
/** Tags of processes a failing test may leave before it learned their pids. */
const leftoverTags: string[] = [];
/** Witness logs to delete after the test. */
const logs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  [...leftovers.splice(0), ...leftoverTags.splice(0).flatMap(pidsWith)].forEach(reap);
  for (const log of logs.splice(0)) rmSync(log, { force: true });
});

/** A unique tag for pidsWith, reaped after the test whatever happens. */
function tagged(): string {
  const tag = `--tag=${crypto.randomUUID()}`;
  leftoverTags.push(tag);
  return tag;
}

/** The worker pid group-wrapper.ts reported on stderr (NaN until it has, which isAlive refuses). */
const workerPid = (stderr: string): number => Number(/worker (\d+)\n/.exec(stderr)?.[1]);

/** Signals (not signal-0 probes) this process sends to process groups from now on, and when. */
function recordGroupSignals(): { signal: string | number | undefined; at: number }[] {
  const sent: { signal: string | number | undefined; at: number }[] = [];
  const kill = process.kill.bind(process);
  vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
    if (pid < 0 && signal !== 0) sent.push({ signal, at: Date.now() });
    return kill(pid, signal);
  });
  return sent;
}

/** A fresh path for close-witness.mjs to write to, deleted after the test. */
function witnessLog(): string {
  const log = join(tmpdir(), `close-witness-${crypto.randomUUID()}.log`);
  logs.push(log);
  return log;
}

/** What close-witness.mjs wrote, in order. */
function witnessed(log: string): { event: string; at: number }[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [event = '', at] = line.split(' ');
      return { event, at: Number(at) };
    });
}

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
    await using source = mcp({ transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] });
    const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
    // The exit ended the handshake: unnoticed, it would have waited out the SDK's 60 s.
    expect(message).toContain('exited (code 3)');
  }, START_MS);

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
  }, START_MS + within(GRACE_MS + TERM_MS + KILL_MS) + 2_000);

  it('close() closes stdin first: a server that exits on EOF is gone well before the SIGTERM grace, unsignalled', async () => {
    const signals = recordGroupSignals();
    const log = witnessLog();
    const source = mcp({ transport: 'stdio', command: process.execPath, args: [CLOSE_WITNESS, '--exit-on-eof', `--log=${log}`, tagged()] });
    await source.tools();
    const started = Date.now();
    await source.close();
    const took = Date.now() - started;
    expect(witnessed(log).map((e) => e.event)).toEqual(['eof']);
    expect(signals).toEqual([]);
    // Returned once the server exited, not when the grace ran out.
    expect(took).toBeLessThan(GRACE_MS / 2);
  }, START_MS + GRACE_MS);

  it('close() escalates in order: stdin EOF, SIGTERM after its grace, SIGKILL after its wait, then returns', async () => {
    const signals = recordGroupSignals();
    const log = witnessLog();
    const tag = tagged();
    const source = mcp({ transport: 'stdio', command: process.execPath, args: [CLOSE_WITNESS, '--hold', `--log=${log}`, tag] });
    await source.tools();
    const started = Date.now();
    await source.close();
    const closedAt = Date.now();
    const seen = witnessed(log);
    expect(seen.map((e) => e.event)).toEqual(['eof', 'SIGTERM']);
    expect(signals.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    const [eof, term] = seen.map((e) => e.at);
    const [sentTerm, sentKill] = signals.map((s) => s.at);
    if (eof === undefined || term === undefined || sentTerm === undefined || sentKill === undefined) throw new Error('a step is missing');
    // The server saw EOF before any signal was sent, and the SIGTERM it saw was that one.
    expect(eof).toBeLessThanOrEqual(sentTerm);
    expect(term).toBeGreaterThanOrEqual(sentTerm);
    expectHonoured(h, started, sentTerm, GRACE_MS);
    expectHonoured(h, sentTerm, sentKill, TERM_MS);
    // The leader is this process's child, reaped as it dies: the group is seen empty and
    // close() returns without waiting KILL_MS out.
    expect(closedAt - sentKill).toBeLessThan(KILL_MS / 2);
    expect(pidsWith(tag)).toEqual([]);
  }, START_MS + within(GRACE_MS + TERM_MS + KILL_MS));

  it('close() ends a child and grandchild that ignore SIGTERM, within its bound', async () => {
    const source = mcp({ transport: 'stdio', ...tsServer(PROBE, '--ignore-term') });
    const tools = await source.tools();
    const child = await pidOf(tools);
    const grand = JSON.parse(String((await run(h, pick(tools, 'spawn_grandchild'), { ignoreTerm: true })).output)) as { pid: number };
    leftovers.push(child, grand.pid);
    const started = Date.now();
    await source.close();
    // End to end, and loose on purpose: the steps are timed above. Here the grandchild,
    // orphaned by the SIGKILL, is reaped by PID 1, often late; until then its zombie keeps
    // the group alive and close() waits KILL_MS out, so this takes the whole 4 s or more.
    expect(Date.now() - started).toBeLessThan(within(GRACE_MS + TERM_MS + KILL_MS));
    expect(await waitGone(child, 1_000)).toBe(true);
    expect(await waitGone(grand.pid, 1_000)).toBe(true);
  }, START_MS + within(GRACE_MS + TERM_MS + KILL_MS) + 2_000);

  it('a wrapper that exits after starting its worker: the worker, holding the pipes, gets SIGTERM then SIGKILL', async () => {
    const signals = recordGroupSignals();
    const tag = tagged();
    let stderr = '';
    const source = mcp({ transport: 'stdio', ...tsServer(GROUP_WRAPPER, tag), stderr: (chunk) => (stderr += chunk) });
    try {
      // Without the group ended, the held pipes would keep this handshake waiting for 60 s.
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      expect(message).toContain('exited (code 0)');
      const worker = workerPid(stderr);
      expect(isAlive(worker)).toBe(false);
      expect(stderr).toContain('worker got SIGTERM');
      expect(signals.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL']);
      expectHonoured(h, signals[0]?.at ?? NaN, signals[1]?.at ?? NaN, ORPHAN_TERM_MS);
      expect(pidsWith(tag)).toEqual([]);
    } finally {
      await source.close();
    }
  }, START_MS + within(ORPHAN_TERM_MS + KILL_MS));

  it('a leader that crashes after the handshake takes its worker with it, without close()', async () => {
    const tag = tagged();
    let stderr = '';
    const source = mcp({ transport: 'stdio', ...tsServer(GROUP_WRAPPER, '--serve-then-crash', tag), stderr: (chunk) => (stderr += chunk) });
    try {
      const tools = await source.tools();
      const worker = workerPid(stderr);
      expect(isAlive(worker)).toBe(true);
      // The worker holds the pipes: the call can only fail once its group has been ended.
      expect(await run(h, pick(tools, 'crash'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
      // The pipes close as the worker exits; the kernel may take a moment to finish it.
      expect(await waitGone(worker, 1_000)).toBe(true);
      expect(stderr).toContain('worker got SIGTERM');
      expect(pidsWith(tag)).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it('close() right after a leader crashed resolves only once the worker it left is gone', async () => {
    const source = mcp({ transport: 'stdio', ...tsServer(PROBE), stderr: 'ignore' });
    const tools = await source.tools();
    const grand = JSON.parse(String((await run(h, pick(tools, 'spawn_grandchild'), { ignoreTerm: true })).output)) as { pid: number };
    leftovers.push(grand.pid);
    expect(isAlive(grand.pid)).toBe(true);
    // The grandchild does not hold the pipes, so the crash is seen at once; its SIGTERM is ignored.
    expect(await run(h, pick(tools, 'crash'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
    await source.close();
    expect(isAlive(grand.pid)).toBe(false);
  });

  it('a group observed empty is never signalled again, not even by close()', async () => {
    const kill = vi.spyOn(process, 'kill');
    try {
      const source = mcp({ transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] });
      await expectSourceError(h, () => source.tools(), 'source.unavailable');
      await source.close();
      await source.close();
      // The leader was alone in its group and already reaped: one probe found nobody, and
      // from then on that pgid may be a stranger's.
      const group = kill.mock.calls.flatMap(([pid, signal], i) =>
        typeof pid === 'number' && pid < 0 ? [{ signal, threw: kill.mock.results[i]?.type === 'throw' }] : [],
      );
      expect(group).toEqual([{ signal: 0, threw: true }]);
    } finally {
      kill.mockRestore();
    }
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
    // 'unavailable' is the lost connection's reason; the only timer, the SDK's 60 s, says 'timeout'.
    expect(await run(h, pick(tools, 'crash'), {})).toMatchObject({ isError: true, reason: 'unavailable' });
    const second = await pidOf(tools);
    leftovers.push(second);
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);
  }, 2 * START_MS);

  it('a one-shot script that closes its source exits on its own', async () => {
    const script = fileURLToPath(new URL('./fixtures/one-shot.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    // Starting takes what the machine gives it (tsx compiles the library, then the server,
    // niced beside the main lane in the gate: seen past 20 s); what is under test is the end:
    // once the script has printed its result and closed, it must exit at once by itself.
    const code = await new Promise<number | null>((resolve, reject) => {
      const giveUp = (why: string) => () => {
        child.kill('SIGKILL');
        reject(new Error(why));
      };
      let timer = setTimeout(giveUp('the one-shot script printed nothing within 60 s'), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        if (out === '') {
          clearTimeout(timer);
          timer = setTimeout(giveUp('the one-shot script did not exit within 5 s of printing its result'), 5_000);
        }
        out += chunk.toString();
      });
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    // The script prints the tool's output, itself JSON text: `"{\"pid\":123}"`.
    const grand = JSON.parse(JSON.parse(out.trim()) as string) as { pid: number };
    expect(await waitGone(grand.pid, 1_000)).toBe(true);
  }, 70_000);
});
