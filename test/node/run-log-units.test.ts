/**
 * Unit tests of RunLog (src/core/engine/run-log.ts), the rules the engine suites reach only
 * through whole runs: writes keep their order whichever path they take; another engine's
 * resolutions (and lease entries) are taken in on a conflict, only the winning resolution
 * handed on, while anything else another engine wrote fails the write; a failure that is not
 * a conflict is never retried; and what a store hands back is checked (JSON, positions).
 */
import { describe, expect, it } from 'vitest';
import { entry } from '../../src/core/engine/entries.js';
import { RunLog } from '../../src/core/engine/run-log.js';
import type { JournalEntry } from '../../src/core/journal/entries.js';
import { APPEND_NOW, type JournalStore } from '../../src/core/journal/store.js';
import { RulvarError, memoryJournal } from '../../src/node/index.js';
import { caught } from '../core/helpers.js';

const step = (name: string): JournalEntry => entry({ type: 'step', name, value: name });
const tool = (turn: number, index: number): JournalEntry => entry({ type: 'tool', agent: 'a', turn, index, result: { callId: `c${index}`, toolName: 't', isError: false, output: index }, audit: { verdict: 'allow', layer: 'default', advisory: [] } });
const resolution = (key: string, decision: 'allow' | 'deny'): JournalEntry => entry({ type: 'resolution', key, decision, by: 'external', at: '2026-12-04T00:00:00.000Z' });
const lease: JournalEntry = entry({ type: 'lease', holder: 'other', until: 0 });
const codeOf = async (work: () => unknown) => ((await caught(work)) as { code?: unknown }).code;

describe('RunLog: order and indexes', () => {
  it('a write made while an exclusive step is pending goes after it, on a store that appends in place', async () => {
    const journal = memoryJournal();
    const log = await RunLog.load(journal, 'r');
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = log.exclusive(async () => {
      await gate;
      return log.writeUnless([step('first')], () => false);
    });
    const second = log.write(step('second'));
    release();
    await Promise.all([first, second]);
    expect((await journal.load('r')).map((e) => (e as { name?: string }).name)).toEqual(['first', 'second']);
  });

  it('an agent not journaled has empty lists; two results of one turn are both kept, loaded or written', async () => {
    const journal = memoryJournal();
    await journal.append('r', [tool(0, 0), tool(0, 1), tool(2, 0)], 0);
    const log = await RunLog.load(journal, 'r');
    expect(log.agent('nobody')).toEqual({ turns: [], tools: [] });
    expect(log.agent('a').tools[0]?.map((e) => e.index)).toEqual([0, 1]);
    await log.write(tool(2, 1));
    expect(log.agent('a').tools[2]?.map((e) => e.index)).toEqual([0, 1]);
    expect(log.size).toBe(4);
  });

  it('a turn or index must be an integer from 0 below 1,000,000; an entry that is not JSON is corrupt', async () => {
    const loaded = (entries: unknown[]) => RunLog.load({ load: () => Promise.resolve(entries as JournalEntry[]), append: () => Promise.resolve() }, 'r');
    expect((await loaded([tool(999_999, 0)])).agent('a').tools[999_999]).toHaveLength(1);
    for (const bad of [1_000_000, -1, 1.5, '2']) expect(await codeOf(() => loaded([tool(0, 0), { ...tool(0, 0), turn: bad }]))).toBe('journal.corrupt');
    const error = (await caught(() => loaded([step('ok'), { ...step('x'), value: 1n }]))) as RulvarError;
    expect([error.code, error.message]).toEqual(['journal.corrupt', 'run "r": entry 1 is not JSON']);
  });
});

describe('RunLog: another engine on the same run', () => {
  async function raced(foreign: JournalEntry[]) {
    const journal = memoryJournal();
    await journal.append('r', [step('s')], 0);
    const log = await RunLog.load(journal, 'r');
    const handed: JournalEntry[] = [];
    log.onForeignResolution = (e) => handed.push(e);
    await journal.append('r', foreign, 1);
    return { journal, log, handed };
  }

  it('its resolutions and lease entries are taken in, only the winning resolution handed on, and the write retried', async () => {
    const { journal, log, handed } = await raced([resolution('k', 'allow'), lease, resolution('k', 'deny'), resolution('j', 'deny')]);
    await log.write(step('mine'));
    expect(handed).toEqual([resolution('k', 'allow'), resolution('j', 'deny')]);
    expect((await journal.load('r')).at(-1)).toEqual(step('mine'));
    expect(log.resolutions.get('k')).toEqual(resolution('k', 'allow'));
  });

  it('anything else it wrote fails the write with journal.conflict, and nothing is handed on', async () => {
    const { journal, log, handed } = await raced([resolution('k', 'allow'), step('theirs')]);
    expect(await codeOf(() => log.write(step('mine')))).toBe('journal.conflict');
    expect(handed).toEqual([]);
    expect((await journal.load('r')).length).toBe(3);
  });

  it('a null or a hole where its entries should be is a conflict, not a crash', async () => {
    for (const odd of [null, undefined]) {
      let loads = 0;
      const store: JournalStore = {
        load: () => Promise.resolve((loads += 1) === 1 ? [] : [odd as never]),
        append: () => Promise.reject(new RulvarError('journal.conflict', 'moved')),
      };
      const log = await RunLog.load(store, 'r');
      log.onForeignResolution = () => undefined;
      expect(await codeOf(() => log.write(step('mine')))).toBe('journal.conflict');
    }
  });

  it('without a listener for resolutions, its resolution is a conflict too', async () => {
    const journal = memoryJournal();
    const log = await RunLog.load(journal, 'r');
    await journal.append('r', [resolution('k', 'allow')], 0);
    expect(await codeOf(() => log.write(step('mine')))).toBe('journal.conflict');
  });
});

describe('RunLog: failures that are not conflicts', () => {
  it('an in-place append that fails otherwise is thrown as it is, and append is never tried', async () => {
    let appends = 0;
    const store = {
      load: () => Promise.resolve([]),
      append: () => ((appends += 1), Promise.resolve()),
      [APPEND_NOW]: () => {
        throw new RulvarError('journal.unavailable', 'disk');
      },
    } satisfies JournalStore & { [APPEND_NOW]: unknown };
    const log = await RunLog.load(store, 'r');
    expect(await codeOf(() => log.write(step('x')))).toBe('journal.unavailable');
    expect(appends).toBe(0);
  });

  it('a failed append after another engine\'s resolution is thrown, nothing taken in; a store that throws leaves the queue free', async () => {
    const inner = memoryJournal();
    await inner.append('r', [resolution('k', 'allow')], 0);
    let fail: 'io' | 'throw' | undefined = 'io';
    const store: JournalStore = {
      load: (runId) => inner.load(runId),
      append: (runId, entries, expected) => {
        if (fail === 'throw') throw new Error('thrown, not rejected');
        return fail === 'io' ? Promise.reject(new RulvarError('journal.unavailable', 'disk')) : inner.append(runId, entries, expected);
      },
    };
    const log = await RunLog.load(store, 'r');
    await inner.append('r', [resolution('j', 'deny')], 1);
    const handed: JournalEntry[] = [];
    log.onForeignResolution = (e) => handed.push(e);
    expect(await codeOf(() => log.write(step('x')))).toBe('journal.unavailable');
    expect(handed).toEqual([]);
    fail = 'throw';
    expect(((await caught(() => log.write(step('y')))) as Error).message).toBe('thrown, not rejected');
    fail = undefined;
    await log.write(step('z'));
    expect(handed).toEqual([resolution('j', 'deny')]);
    expect((await inner.load('r')).at(-1)).toEqual(step('z'));
  });
});
