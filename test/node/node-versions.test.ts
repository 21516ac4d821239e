/**
 * Which Node runs the Node tests, and the runtime facts src/node and the MCP call path build
 * on. CI runs this file under the machine's Node 20 (`npm test`) and under the pinned 22 and 24
 * (scripts/node-matrix.sh, which sets RULVAR_NODE_EXPECTED); each fact below names the versions
 * it was seen to hold on. Should a later Node change one, this file fails naming the fact,
 * instead of a stdio or journal test failing somewhere downstream of it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { link, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inheritedEnvironment } from '../../src/node/environment.js';
import { mcp } from '../../src/node/index.js';

const expected = process.env['RULVAR_NODE_EXPECTED'];
const major = Number(process.versions.node.split('.')[0]);

describe('the Node under test', () => {
  // Proves the matrix runs what it says: vitest's workers are forked from process.execPath,
  // so this worker is the binary node-matrix.sh started vitest with, not the machine's Node.
  it.runIf(expected !== undefined)(`is the version node-matrix.sh asked for (${expected ?? 'unset'})`, () => {
    expect(process.version).toBe(expected);
  });

  // A stdio server given as `node …`, or an npm bin starting `#!/usr/bin/env node` (the real
  // servers in real-servers.test.ts), finds node on the PATH a stdio child inherits. If that
  // were another Node, those tests would prove the machine's Node instead of this one.
  it('a stdio child that runs plain `node` from PATH gets this same Node', () => {
    const reported = execFileSync('node', ['-p', 'process.version'], { env: inheritedEnvironment(), encoding: 'utf8' });
    expect(reported.trim()).toBe(process.version);
  });
});

describe('runtime facts the code relies on (seen on Node 20, 22 and 24)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rulvar-node-facts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // process-group.ts: the group is polled with signal 0 and ended as a whole after its
  // leader is gone; "empty" must read as ESRCH, or a group would be waited on forever.
  it('signal 0 reaches a group whose leader exited while a member lives, and is ESRCH once it is empty', async () => {
    const worker = `require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' }).unref();`;
    const leader = spawn(process.execPath, ['-e', worker], { detached: true, stdio: 'ignore' });
    const pgid = leader.pid;
    if (pgid === undefined) throw new Error('the leader did not start');
    await new Promise((resolve) => leader.once('exit', resolve));
    expect(() => process.kill(-pgid, 0)).not.toThrow();
    process.kill(-pgid, 'SIGKILL');
    const until = Date.now() + 5_000;
    let code: unknown;
    while (code === undefined && Date.now() < until) {
      try {
        process.kill(-pgid, 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
      } catch (error) {
        code = (error as NodeJS.ErrnoException).code;
      }
    }
    expect(code).toBe('ESRCH');
  });

  // journal-fs.ts syncDir: a new run file's name is made durable by fsyncing its directory.
  it('a directory opens read-only and fsyncs', async () => {
    const handle = await open(dir, 'r');
    try {
      await expect(handle.sync()).resolves.toBeUndefined();
    } finally {
      await handle.close();
    }
  });

  // journal-fs.ts openOrCreate and link(): creation races are settled by EEXIST.
  it('O_EXCL creation and link() refuse an existing name with EEXIST', async () => {
    const file = path.join(dir, 'taken');
    await writeFile(file, 'x');
    await expect(open(file, 'wx')).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(link(file, file)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  // core/mcp/call.ts cancelled(): a deadline is told from other cancellations by this name.
  it('AbortSignal.timeout aborts with an Error named TimeoutError', async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    expect(signal.reason).toBeInstanceOf(Error);
    expect((signal.reason as Error).name).toBe('TimeoutError');
  });

  // core/mcp/cursor-digest.ts: cursors are hashed as UTF-16 code units through the global
  // WebCrypto (no node:crypto import, so the same code runs in workerd and browsers).
  it('the global crypto.subtle digests a Uint16Array view', async () => {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint16Array([0x61])));
    // SHA-256 of the bytes 61 00: 'a' as one little-endian code unit (`printf 'a\0' | sha256sum`).
    expect(Buffer.from(digest).toString('hex')).toBe('ffe9aaeaa2a2d5048174df0b80599ef0197ec024c4b051bc9860cff58ef7f9f3');
  });
});

describe('where Node versions differ', () => {
  // Node 21 added a global `navigator` (userAgent 'Node.js/<major>'): Node 22 and 24 have it,
  // Node 20 does not. Code that guesses "browser" from `typeof navigator` would turn stdio off
  // on 22 and 24; this package picks its build by export condition, so stdio stays on.
  it(`navigator is ${major >= 21 ? `there ('Node.js/${major}')` : 'absent'} on Node ${major}, and the Node build keeps stdio either way`, () => {
    if (major >= 21) expect(globalThis.navigator?.userAgent).toBe(`Node.js/${major}`);
    else expect(typeof globalThis.navigator).toBe('undefined');
    expect(() => mcp({ transport: 'stdio', command: process.execPath })).not.toThrow();
  });
});
