/**
 * An in-memory Durable Object storage, faithful where durableObjectJournal leans on the real
 * one: values are stored as structured clones; keys list in UTF-8 order; a value over 128 KiB
 * of V8 serialization, a key over 2 KiB of UTF-8 or more than 128 keys in one put throws, as
 * the platform does; a transaction runs alone, reads its own writes and commits all or
 * nothing. It counts what it is asked, so a suite can check what an append costs.
 */
import type { DurableObjectListOptionsLike, DurableObjectStorageLike, DurableObjectTransactionLike } from '../../src/core/index.js';

export interface FakeStorage extends DurableObjectStorageLike {
  /** Committed keys and values, for a test to inspect or tamper with. */
  readonly data: Map<string, unknown>;
  /** Calls made and keys put (by committed and rolled-back transactions alike). */
  readonly counts: { gets: number; lists: number; puts: number; keysPut: number };
  /** Runs before each put with its keys; a throw fails that put, as a storage fault would. */
  beforePut: ((keys: string[]) => void) | undefined;
}

/** The platform's figures (developers.cloudflare.com/durable-objects/platform/limits). */
export const MAX_VALUE_BYTES = 128 * 1024;
const MAX_KEY_BYTES = 2048;
const MAX_KEYS_PER_PUT = 128;

export function fakeDurableObjectStorage(): FakeStorage {
  const data = new Map<string, unknown>();
  const counts = { gets: 0, lists: 0, puts: 0, keysPut: 0 };
  // Transactions run one after another: the isolation a real object's storage gives them.
  let queue: Promise<unknown> = Promise.resolve();

  const storage: FakeStorage = {
    data,
    counts,
    beforePut: undefined,
    async get(key) {
      counts.gets += 1;
      return structuredClone(data.get(key));
    },
    async list(options: DurableObjectListOptionsLike) {
      counts.lists += 1;
      const { prefix, startAfter, end, limit } = options;
      const keys = [...data.keys()]
        .filter((key) => key.startsWith(prefix) && (startAfter === undefined || utf8Order(key, startAfter) > 0) && utf8Order(key, end) < 0)
        .sort(utf8Order)
        .slice(0, limit);
      return new Map(keys.map((key) => [key, structuredClone(data.get(key))]));
    },
    transaction<T>(closure: (txn: DurableObjectTransactionLike) => Promise<T>): Promise<T> {
      const run = queue.then(async () => {
        const written = new Map<string, unknown>();
        const txn: DurableObjectTransactionLike = {
          async get(key) {
            counts.gets += 1;
            return structuredClone(written.has(key) ? written.get(key) : data.get(key));
          },
          async put(entries) {
            const keys = Object.keys(entries);
            counts.puts += 1;
            counts.keysPut += keys.length;
            checkPut(entries);
            storage.beforePut?.(keys);
            for (const key of keys) written.set(key, structuredClone(entries[key]));
          },
        };
        const result = await closure(txn);
        for (const [key, value] of written) data.set(key, value);
        return result;
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
  return storage;
}

/** Refuses the whole put, before any of it lands, for what the platform refuses. */
function checkPut(entries: Record<string, unknown>): void {
  const keys = Object.keys(entries);
  if (keys.length > MAX_KEYS_PER_PUT) throw new RangeError(`put() supports up to ${MAX_KEYS_PER_PUT} keys at a time, not ${keys.length}`);
  for (const key of keys) {
    const keyBytes = utf8.encode(key).length;
    if (keyBytes > MAX_KEY_BYTES) throw new RangeError(`Keys cannot be larger than ${MAX_KEY_BYTES} bytes. A key of size ${keyBytes} was provided.`);
    const size = serializedSize(entries[key]);
    if (size > MAX_VALUE_BYTES) throw new RangeError(`Values cannot be larger than ${MAX_VALUE_BYTES} bytes. A value of size ${size} was provided.`);
  }
}

/**
 * What V8's serializer makes of a value, closely enough: a string takes one byte per UTF-16
 * unit, or two once any unit is above U+00FF, plus a few bytes of framing.
 */
export function serializedSize(value: unknown): number {
  const FRAMING = 8;
  if (typeof value !== 'string') return FRAMING + (JSON.stringify(value)?.length ?? 0);
  return FRAMING + (/[\u0100-\uffff]/.test(value) ? 2 * value.length : value.length);
}

const utf8 = new TextEncoder();

/** Byte order of the UTF-8 encodings, which is the order in which storage lists keys. */
function utf8Order(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
