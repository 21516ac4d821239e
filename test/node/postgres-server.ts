/**
 * A throwaway PostgreSQL server for the tests and the bench: `initdb` into a temp directory,
 * `pg_ctl` on a free loopback port, password authentication over TCP (so tests can check the
 * password never reaches an error). PostgreSQL refuses to run as root, which the suite is in
 * CI, so as root every server command runs as the unprivileged `postgres` user that
 * scripts/ensure-postgres.sh makes sure of, on a directory chowned to it.
 *
 * `stop()` stops the server and removes the directory. A watchdog (a detached shell, started
 * as that user) does the same once the process named `ownerPid` is gone, so a test run killed
 * before its teardown still leaves no server or directory behind.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface PostgresServer {
  /** `postgres://rulvar:<password>@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly password: string;
  readonly port: number;
  /** Stops the server, keeping its data: `fast` (clean) or `immediate` (as a crash). */
  halt(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts a halted server again, on the same port. */
  resume(): Promise<void>;
  /** Stops the server and removes its directory (idempotent). */
  stop(): Promise<void>;
  /** What another process needs to stop this server (see stopRecorded). */
  readonly record: ServerRecord;
}

export interface ServerRecord {
  readonly bin: string;
  readonly dir: string;
  readonly uid?: number;
  readonly gid?: number;
  readonly watchdog?: number;
}

export interface StartOptions {
  /** The process whose exit stops the server if nothing else did (default: this one). */
  readonly ownerPid?: number;
  /** fsync on (real commit latency, for the bench); off by default, as tests need no power-loss safety. */
  readonly durable?: boolean;
}

/** The server binaries' directory, installing PostgreSQL first when missing. */
export async function postgresBin(): Promise<string> {
  const { stdout } = await run('bash', [path.join(ROOT, 'scripts/ensure-postgres.sh')], { timeout: 300_000 });
  const bin = stdout.trim().split('\n').at(-1) ?? '';
  if (bin === '') throw new Error('ensure-postgres.sh printed no bin directory');
  return bin;
}

export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const bin = await postgresBin();
  const user = await unprivilegedUser();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rulvar-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const password = randomBytes(18).toString('base64url');
  const as = { cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, LC_ALL: 'C' }, timeout: 120_000, ...user };
  let watchdog: number | undefined;
  try {
    await writeFile(path.join(dir, 'password'), `${password}\n`, { mode: 0o600 });
    if (user.uid !== undefined && user.gid !== undefined) {
      await chown(dir, user.uid, user.gid);
      await chown(path.join(dir, 'password'), user.uid, user.gid);
    }
    await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'rulvar', `--pwfile=${path.join(dir, 'password')}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], as);
    watchdog = startWatchdog(bin, dir, data, options.ownerPid ?? process.pid, user);
    let port = 0;
    const settings = (p: number) =>
      [`-c listen_addresses=127.0.0.1`, `-p ${p}`, `-c unix_socket_directories=${dir}`, '-c max_connections=300', `-c fsync=${options.durable === true ? 'on' : 'off'}`].join(' ');
    const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', ...args], as);
    // Another process may take the free port between the probe and the bind: try a few.
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        await pgCtl('-o', settings(port), 'start');
        break;
      } catch (error) {
        if (attempt === 5) throw new Error(`pg_ctl start failed 5 times; last: ${(error as Error).message}`);
      }
    }
    const record: ServerRecord = { bin, dir, ...user, ...(watchdog === undefined ? {} : { watchdog }) };
    let stopped = false;
    return {
      url: `postgres://rulvar:${password}@127.0.0.1:${port}/postgres`,
      password,
      port,
      record,
      halt: async (mode) => void (await pgCtl('-m', mode, 'stop')),
      resume: async () => void (await pgCtl('-o', settings(port), 'start')),
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopRecorded(record);
      },
    };
  } catch (error) {
    await stopRecorded({ bin, dir, ...user, ...(watchdog === undefined ? {} : { watchdog }) });
    throw error;
  }
}

/** Stops the server a record describes (from this process or another) and removes its directory. */
export async function stopRecorded(record: ServerRecord): Promise<void> {
  if (record.watchdog !== undefined) {
    try {
      process.kill(record.watchdog, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  const as = { cwd: record.dir, timeout: 30_000, ...(record.uid === undefined ? {} : { uid: record.uid, gid: record.gid }) };
  const data = path.join(record.dir, 'data');
  await run(path.join(record.bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '20', 'stop'], as).catch(() =>
    run(path.join(record.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], as).catch(() => undefined),
  );
  await rm(record.dir, { recursive: true, force: true });
}

function startWatchdog(bin: string, dir: string, data: string, ownerPid: number, user: { uid?: number; gid?: number }): number | undefined {
  const script = `while [ -d /proc/${ownerPid} ]; do sleep 1; done; "${bin}/pg_ctl" -D "${data}" -m immediate stop >/dev/null 2>&1; rm -rf "${dir}"`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', cwd: '/', ...user });
  child.unref();
  return child.pid;
}

/** As root: the `postgres` user's ids; otherwise nothing (the server runs as this user). */
async function unprivilegedUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
