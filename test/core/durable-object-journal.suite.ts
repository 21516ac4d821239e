/**
 * durableObjectJournal against a faithful in-memory storage (durable-object-storage-fake.ts):
 * the limits of the platform's storage, run ids that must not reach each other's keys, the
 * cost of an append on a long run, and the engine suspending and resuming over it. The
 * JournalStore contract every store keeps is journal-contract.suite.ts's (run over this store
 * from suite.ts); test/workerd runs both in a real object.
 */
import type { JournalEntry, JournalStore } from '../../src/core/index.js';
import { scripted } from '../../src/testing/index.js';
import { fakeDurableObjectStorage, MAX_VALUE_BYTES, serializedSize, type FakeStorage } from './durable-object-storage-fake.js';
import type { SuiteHarness } from './harness.js';
import { caught } from './helpers.js';

const step = (n: number, value: unknown = n): JournalEntry => Object.freeze({ v: 1, type: 'step', name: `s${n}`, value });
const steps = (from: number, count: number): JournalEntry[] => Array.from({ length: count }, (_, i) => step(from + i));
const LONE_SURROGATE = /\p{Cs}/u;

export function durableObjectJournalSuite(h: SuiteHarness): void {
  const { durableObjectJournal, RulvarError, ConfigError, createEngine, defineWorkflow, tool } = h.lib;
  const expect = h.expect;

  async function expectError(fn: () => unknown, code: string, guard: (e: unknown) => boolean = RulvarError.is): Promise<string> {
    const error = await caught(fn);
    expect(guard(error)).toBe(true);
    expect((error as { code?: unknown }).code).toBe(code);
    return (error as Error).message;
  }

  const over = (storage: FakeStorage): JournalStore => durableObjectJournal(storage);
  const snapshot = (storage: FakeStorage) => new Map(storage.data);
  /** Moves a part of a two-part entry to a key that says the entry has three. */
  const recount = (data: Map<string, unknown>, key: string) => {
    data.set(key.replace(/\/00002$/, '/00003'), data.get(key));
    data.delete(key);
  };

  h.describe('durableObjectJournal', () => {
    h.it('an entry larger than a storage value is split across keys, never inside a surrogate pair, and joined on load', async () => {
      const storage = fakeDurableObjectStorage();
      // 'é' stays one byte a unit in V8, '€' costs two; the emoji entries differ by one unit of
      // name, so one of them has a pair across a part boundary.
      const big = [step(0, 'é'.repeat(300_000)), step(1, '€'.repeat(100_000)), step(2, '😀'.repeat(40_000)), step(10, '😀'.repeat(40_000))];
      await over(storage).append('big', big, 0);
      expect(await over(storage).load('big')).toEqual(big);
      const values = [...storage.data.values()].filter((v): v is string => typeof v === 'string');
      expect(values.length).toBeGreaterThan(big.length);
      expect(values.every((v) => serializedSize(v) <= MAX_VALUE_BYTES && !LONE_SURROGATE.test(v))).toBe(true);
    });

    h.it('a put failing inside an append rolls the whole append back, and the next append succeeds', async () => {
      const storage = fakeDurableObjectStorage();
      const journal = over(storage);
      await journal.append('r', steps(0, 1), 0);
      const before = snapshot(storage);
      let puts = 0;
      // 200 entries are more keys than one put may carry: fail the second of the append's puts.
      storage.beforePut = () => {
        puts += 1;
        if (puts === 2) throw new Error('storage fault');
      };
      expect(((await caught(() => journal.append('r', steps(1, 200), 1))) as Error).message).toBe('storage fault');
      expect(storage.data).toEqual(before);
      expect(await journal.load('r')).toEqual(steps(0, 1));
      await journal.append('r', steps(1, 200), 1);
      expect(await journal.load('r')).toEqual(steps(0, 201));
    });

    h.it('the stored length is the commit marker: keys past it are never read', async () => {
      const storage = fakeDurableObjectStorage();
      await over(storage).append('r', [step(0)], 0);
      const [first] = [...storage.data.keys()];
      // What a write outside a transaction could leave behind: a part of entry 1, not committed.
      storage.data.set(first!.replace('/0000000000/', '/0000000001/'), 'not JSON');
      expect(await over(storage).load('r')).toEqual([step(0)]);
      await over(storage).append('r', [step(1)], 1);
      expect(await over(storage).load('r')).toEqual([step(0), step(1)]);
    });

    h.it('an entry JSON cannot hold refuses the append with config.invalid_value, nothing written', async () => {
      const storage = fakeDurableObjectStorage();
      const cyclic: Record<string, unknown> = { v: 1, type: 'step', name: 'c' };
      cyclic['value'] = cyclic;
      for (const bad of [cyclic, { v: 1, type: 'step', name: 'b', value: 1n }, 'text', null, [1], new Date(0)]) {
        const message = await expectError(() => over(storage).append('r', [step(0), bad as unknown as JournalEntry], 0), 'config.invalid_value', ConfigError.is);
        expect(message).toContain('journal entry 1 of run "r"');
      }
      expect(storage.data.size).toBe(0);
    });

    h.it('a malformed stored value is journal.corrupt naming the run and the entry', async () => {
      // Stored keys in write order: entry 0, entry 1 (two parts), entry 2, the length.
      const tamperings: [number, string, (data: Map<string, unknown>, keys: string[]) => void][] = [
        [1, 'holds a value that is not text', (data, keys) => data.set(keys[1]!, 7)],
        [1, 'is not JSON', (data, keys) => data.set(keys[1]!, '{"v":1,')],
        [2, 'is not a JSON object', (data, keys) => data.set(keys[3]!, '[1]')],
        [1, 'has a missing or misplaced part', (data, keys) => data.delete(keys[2]!)],
        // The two parts of entry 1 disagreeing on how many there are, either way round.
        [1, 'has a missing or misplaced part', (data, keys) => recount(data, keys[1]!)],
        [1, 'has a missing or misplaced part', (data, keys) => recount(data, keys[2]!)],
        [3, 'is missing or incomplete', (data, keys) => data.set(keys.at(-1)!, 4)],
      ];
      for (const [index, what, tamper] of tamperings) {
        const storage = fakeDurableObjectStorage();
        await over(storage).append('run 7', [step(0), step(1, 'x'.repeat(40_000)), step(2)], 0);
        tamper(storage.data, [...storage.data.keys()]);
        const message = await expectError(() => over(storage).load('run 7'), 'journal.corrupt');
        expect(message).toContain(`run "run 7": journal entry ${index} ${what}`);
      }
      const storage = fakeDurableObjectStorage();
      await over(storage).append('r', [step(0)], 0);
      storage.data.set([...storage.data.keys()].find((k) => k.endsWith('/length'))!, 'one');
      expect(await expectError(() => over(storage).load('r'), 'journal.corrupt')).toContain('run "r"');
      await expectError(() => over(storage).append('r', [step(1)], 1), 'journal.corrupt');
    });

    h.it('hostile run ids: refused when they cannot be keys, kept apart when they look like keys', async () => {
      const storage = fakeDurableObjectStorage();
      for (const bad of ['', 'x'.repeat(129), 'a\u0000b', 'a\nb', '\u007f', '\u0085', '\ud800', 'a\udc00', 42]) {
        await expectError(() => over(storage).load(bad as string), 'config.invalid_value', ConfigError.is);
        await expectError(() => over(storage).append(bad as string, [step(0)], 0), 'config.invalid_value', ConfigError.is);
      }
      expect(storage.data.size).toBe(0);
      const ids = ['x', 'x/', 'x/e', 'x/e/0000000000', 'x/length', '1:x', '1:x/e/0000000000', 'rulvar/journal/1:x', '😀'.repeat(64), ' '];
      for (const [i, id] of ids.entries()) await over(storage).append(id, [step(i, id)], 0);
      for (const [i, id] of ids.entries()) expect(await over(storage).load(id)).toEqual([step(i, id)]);
    });

    h.it('an append on a long run writes only its own keys: 300 appends put 2 keys each, one load pages through all', async () => {
      const storage = fakeDurableObjectStorage();
      const journal = over(storage);
      const perAppend: number[][] = [];
      for (let n = 0; n < 300; n += 1) {
        const { gets, puts, keysPut } = storage.counts;
        await journal.append('long', [step(n)], n);
        perAppend.push([storage.counts.gets - gets, storage.counts.puts - puts, storage.counts.keysPut - keysPut]);
      }
      expect(perAppend.filter(([gets, puts, keys]) => gets !== 1 || puts !== 1 || keys !== 2)).toEqual([]);
      const lists = storage.counts.lists;
      expect(await journal.load('long')).toEqual(steps(0, 300));
      expect(storage.counts.lists - lists).toBe(3);
    });

    h.it('refuses what is not Durable Object storage (the state instead of state.storage)', async () => {
      for (const bad of [undefined, {}, { storage: fakeDurableObjectStorage() }]) {
        await expectError(() => durableObjectJournal(bad as never), 'config.invalid_value', ConfigError.is);
      }
    });

    h.it('the engine over it: suspended by one engine, resolved by a second, resumed by a third; nothing paid twice', async () => {
      const storage = fakeDurableObjectStorage();
      const memo = 'é'.repeat(70_000); // the ask's input spans several parts
      const paid: unknown[] = [];
      const pay = tool({ name: 'pay', description: 'pays', parameters: { type: 'object' }, needsApproval: true, execute: async (input: unknown) => (paid.push(input), { paid: true }) });
      const wf = defineWorkflow({ name: 'invoice' }, async (ctx) => (await ctx.agent('pay the invoice', { tools: [pay] })).text);
      const script = [{ toolCalls: [{ name: 'pay', input: { amount: 5, memo } }] }, 'paid'];
      const models = [scripted(script), scripted(script), scripted(script)];
      const engine = (i: number) => createEngine({ adapters: [models[i]!], journal: over(storage), defaults: { model: 'scripted:m' } });

      const first = await engine(0).run(wf, null, { runId: 'invoice 1' }).result;
      expect(first.status).toBe('suspended');
      const approval = first.status === 'suspended' ? first.approvals[0] : undefined;
      expect(approval).toMatchObject({ runId: 'invoice 1', toolName: 'pay', input: { amount: 5, memo } });
      expect(await engine(1).resolveExternal('invoice 1', approval!.key, 'allow')).toBe(true);
      expect(await engine(2).resume('invoice 1', wf).result).toEqual({ status: 'completed', value: 'paid' });
      expect([models.map((m) => m.calls), paid]).toEqual([[1, 0, 1], [{ amount: 5, memo }]]);
      const types = (await over(storage).load('invoice 1')).map((e) => e.type);
      expect(types).toEqual(['run:start', 'spawn', 'turn', 'approval', 'resolution', 'tool', 'turn', 'agent:end', 'run:end']);
    });
  });
}
