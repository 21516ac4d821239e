/**
 * Appends from writers without the lease while a lease holds the run's lock (a resolveExternal
 * in another process): the lock is held for the run's life, so such a writer hands its append
 * to the holder through an inbox beside the run file instead of waiting for the lock.
 *
 *   <run>.jsonl.req.<time>.<pid>.<id>          a request: { expectedLength, entries }, made
 *                                              whole (written aside, then renamed in)
 *   <run>.jsonl.req.<time>.<pid>.<id>.taken    the request, claimed by whoever serves it
 *   <run>.jsonl.req.<time>.<pid>.<id>.answer   "ok", or "conflict <entries>" (not written
 *                                              when the requester's pid is gone)
 *   <run>.jsonl.bell                     rung after each request: the holder polls for it
 *
 * The holder serves the inbox on a short poll (it checks only for the bell) and when it claims:
 * it removes the bell, takes each request by renaming it, appends it through its lease
 * (expectedLength decides, as for any append: first come first served), answers, and removes
 * it. The writer waits for its answer within LOCK_WAIT_MS; a request no one took by then is
 * withdrawn (`journal.unavailable`, nothing written); once it was taken, the answer is waited
 * for. When the lock is free or stale (the holder released it or died), the writer takes the
 * lock and serves the inbox itself. A request found already taken (its server died mid-way)
 * is answered `ok` when its entries are in the journal where it asked, else applied.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { RulvarError } from '../core/errors.js';
import type { JournalEntry } from '../core/journal/entries.js';
import { settle, type Answer } from './journal-errors.js';
import { codeOf, type JournalFs } from './journal-fs.js';
import { LOCK_WAIT_MS, isRunning } from './journal-lock.js';
import { entriesOf } from './journal-shape.js';

/** How often a lease holder looks for the bell, and a waiting writer for its answer. */
export const INBOX_POLL_MS = 20;
/** Polls between the rings of a writer whose request was taken but not answered yet. */
const RING_AGAIN_POLLS = 50;
/** The longest a writer waits for the answer to a request its server took (a server that died meanwhile is replaced once its lease expires). */
const MAX_ANSWER_WAIT_MS = 120_000;
/** A request larger than this is not read (its writer is told so): a hostile file in the directory must not make the holder buffer it. */
const MAX_REQUEST_BYTES = 256 * 1024 * 1024;
const REQUEST = /^\.req\.\d{15}\.(\d+)\.[0-9a-f-]{36}(\.taken)?$/;

/** Appends a request's entries at `expectedLength`; `recovered` when a server that died may have appended it already. */
export type Apply = (entries: JournalEntry[], expectedLength: number, recovered: boolean) => Promise<Answer>;

export const bellOf = (runPath: string): string => `${runPath}.bell`;

/** Serves every request waiting for the run at `runPath`, oldest first; stops at the first failure to apply (and rejects with it). */
export async function serveInbox(fs: JournalFs, runPath: string, apply: Apply): Promise<void> {
  await fs.unlink(bellOf(runPath)).catch(() => undefined);
  const base = path.basename(runPath);
  const waiting = (await fs.list(path.dirname(runPath))).filter((name) => name.startsWith(base) && REQUEST.test(name.slice(base.length))).sort();
  for (const name of waiting) {
    const request = path.join(path.dirname(runPath), name);
    const recovered = name.endsWith('.taken');
    const taken = recovered ? request : `${request}.taken`;
    if (!recovered) {
      try {
        await fs.rename(request, taken);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') continue; // withdrawn, or served by someone else
        throw error;
      }
    }
    const asked = await readRequest(fs, taken);
    const answer = asked === undefined ? 'unreadable' : await apply(asked.entries, asked.expectedLength, recovered);
    // Nobody would read the answer of a requester that is gone.
    if (isRunning(Number(REQUEST.exec(name.slice(base.length))?.[1]))) {
      await writeWhole(fs, `${recovered ? request.slice(0, -'.taken'.length) : request}.answer`, typeof answer === 'string' ? answer : `conflict ${answer.conflict}`);
    }
    await fs.unlink(taken).catch(() => undefined);
  }
}

/**
 * Hands an append to the holder of the run's lock and waits for the answer. `serveIfFree`
 * takes the lock when it is free or stale and serves the inbox itself (resolving false when
 * the lock is held).
 */
export async function submitToInbox(fs: JournalFs, runPath: string, runId: string, entries: JournalEntry[], expectedLength: number, serveIfFree: () => Promise<boolean>): Promise<void> {
  const request = `${runPath}.req.${String(Date.now()).padStart(15, '0')}.${process.pid}.${randomUUID()}`;
  await writeWhole(fs, request, JSON.stringify({ expectedLength, entries }));
  await ring(fs, runPath);
  const started = Date.now();
  let withdrawable = true;
  for (let attempt = 0; ; attempt += 1) {
    const answer = await readAnswer(fs, `${request}.answer`);
    if (answer === 'unreadable') {
      throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} is held by an engine that could not read this append (over ${MAX_REQUEST_BYTES} bytes?); nothing was written`);
    }
    if (answer !== undefined) return settle(runId, answer, expectedLength);
    if (await serveIfFree()) continue;
    const waited = Date.now() - started;
    if (withdrawable && waited > LOCK_WAIT_MS) {
      if (await withdraw(fs, request)) {
        // Other waiting writers ring again.
        await fs.unlink(bellOf(runPath)).catch(() => undefined);
        throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} is held by a live engine that did not take this append within ${LOCK_WAIT_MS} ms; nothing was written`);
      }
      // Taken meanwhile: its answer is coming.
      withdrawable = false;
    }
    if (waited > MAX_ANSWER_WAIT_MS) throw new RulvarError('journal.unavailable', `the journal of run ${JSON.stringify(runId)} took this append but gave no answer within ${MAX_ANSWER_WAIT_MS} ms`);
    // Rung again while nobody has taken it (a bell removed by a server that died before reaching
    // it), and now and then once taken (its server lost the lease before answering).
    if (!fs.presentSync(bellOf(runPath)) && ((withdrawable && fs.presentSync(request)) || attempt % RING_AGAIN_POLLS === RING_AGAIN_POLLS - 1)) await ring(fs, runPath);
    await sleep(attempt < 3 ? INBOX_POLL_MS / 4 : INBOX_POLL_MS);
  }
}

/** True when the request was still waiting and is now gone; false when a server had taken it. */
async function withdraw(fs: JournalFs, request: string): Promise<boolean> {
  try {
    await fs.rename(request, `${request}.withdrawn`);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
  await fs.unlink(`${request}.withdrawn`).catch(() => undefined);
  return true;
}

async function ring(fs: JournalFs, runPath: string): Promise<void> {
  try {
    await (await fs.createExclusive(bellOf(runPath), '')).close();
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

/** Written aside and renamed in, so whoever sees the name sees all of it. */
async function writeWhole(fs: JournalFs, target: string, text: string): Promise<void> {
  const aside = `${target}.${randomUUID()}.tmp`;
  await (await fs.createExclusive(aside, text)).close();
  await fs.rename(aside, target);
}

/** The request at `at`; undefined for anything this protocol did not write (a hostile file named like one included). */
async function readRequest(fs: JournalFs, at: string): Promise<{ expectedLength: number; entries: JournalEntry[] } | undefined> {
  const file = await fs.openExisting(at).catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    const { size } = await file.stat();
    if (size > MAX_REQUEST_BYTES) return undefined;
    const bytes = new Uint8Array(size);
    for (let read = 0; read < size; ) {
      const got = await file.read(bytes.subarray(read), read);
      if (got === 0) break;
      read += got;
    }
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { expectedLength?: unknown; entries?: unknown };
    const entries = entriesOf(parsed.entries);
    if (typeof parsed.expectedLength !== 'number' || !Number.isSafeInteger(parsed.expectedLength) || entries === undefined) return undefined;
    return { expectedLength: parsed.expectedLength, entries };
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

async function readAnswer(fs: JournalFs, at: string): Promise<Answer | 'unreadable' | undefined> {
  let text: string;
  try {
    text = (await fs.readText(at, 64)).text;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  await fs.unlink(at).catch(() => undefined);
  if (text === 'ok') return 'ok';
  const count = Number(text.split(' ')[1]);
  return text.startsWith('conflict ') && Number.isSafeInteger(count) && count >= 0 ? { conflict: count } : 'unreadable';
}
