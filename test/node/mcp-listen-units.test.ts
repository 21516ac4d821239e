/**
 * Unit tests for src/core/mcp/modern/listen.ts on a fake clock, with a wire client and link
 * of the test's own: the subscriptions/listen request (what it asks, its timeout, its
 * cancel), the acknowledgement waited for at most ackMs (checked from both sides) and read
 * only when it carries this subscription's id and toolsListChanged, a refusing server never
 * asked again, the subscription's end heard once however it ends, and a new one after.
 */
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModernLink } from '../../src/core/mcp/modern/link.js';
import { ToolListener } from '../../src/core/mcp/modern/listen.js';
import type { WireClient } from '../../src/core/mcp/wire-client.js';

const META = 'io.modelcontextprotocol/subscriptionId';

interface Listen {
  readonly request: unknown;
  readonly options: unknown;
  readonly signal: AbortSignal;
  end(): void;
  fail(): void;
}

function setup() {
  const listens: Listen[] = [];
  let nextId = 100;
  const ends: string[] = [];
  const earlier: unknown[] = [];
  const link = { lastListenId: undefined as number | undefined, onListenEnd: (id: unknown) => earlier.push(id) } as unknown as ModernLink & { lastListenId: number | undefined };
  const wire = {
    fallbackNotificationHandler: undefined as ((n: Notification) => Promise<void>) | undefined,
    call: (request: unknown, _schema: unknown, options: unknown, signal: AbortSignal) => {
      link.lastListenId = nextId;
      nextId += 1;
      return new Promise((resolve, reject) => {
        listens.push({ request, options, signal, end: () => resolve({}), fail: () => reject(new Error('dropped')) });
      });
    },
  };
  const listener = new ToolListener(wire as unknown as WireClient, link, () => ends.push('end'));
  const notify = (params: unknown, method = 'notifications/subscriptions/acknowledged') =>
    wire.fallbackNotificationHandler!({ method, params } as Notification);
  const ack = (id: number, toolsListChanged: unknown = true) => notify({ _meta: { [META]: id }, notifications: { toolsListChanged } });
  return { listener, listens, ends, link, notify, ack, earlier };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('opening a subscription', () => {
  it('asks for tool-list changes with a timeout as long as a timer can be, and resolves on its acknowledgement', async () => {
    const { listener, listens, ack } = setup();
    const opened = listener.ensure(1_000);
    expect(listens.map(({ request, options }) => [request, options])).toEqual([
      [{ method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }, { timeout: 2 ** 31 - 1 }],
    ]);
    await ack(100);
    await opened;
    expect(listens[0]!.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(listener.carriesId({ _meta: { [META]: 100 } })).toBe(true);
  });

  it('an open subscription is not opened again', async () => {
    const { listener, listens, ack } = setup();
    const opened = listener.ensure(1_000);
    await ack(100);
    await opened;
    await listener.ensure(1_000);
    expect(listens).toHaveLength(1);
  });

  it('waits ackMs for the acknowledgement, not less; after it the server is not asked again', async () => {
    const { listener, listens } = setup();
    let settled = false;
    const opened = listener.ensure(1_000).then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await opened;
    expect(listens[0]!.signal.aborted).toBe(true);
    expect((listens[0]!.signal.reason as Error).message).toBe('the server did not acknowledge subscriptions/listen with toolsListChanged');
    await listener.ensure(1_000);
    expect(listens).toHaveLength(1);
  });

  it.each([
    ['without toolsListChanged', (h: ReturnType<typeof setup>) => h.ack(100, false)],
    ['with toolsListChanged as a string', (h: ReturnType<typeof setup>) => h.ack(100, 'true')],
    ['with no notifications member', (h: ReturnType<typeof setup>) => h.notify({ _meta: { [META]: 100 } })],
  ])('an acknowledgement %s is a refusal', async (_name, acknowledge) => {
    const h = setup();
    const opened = h.listener.ensure(1_000);
    await acknowledge(h);
    await opened;
    expect(h.listens[0]!.signal.aborted).toBe(true);
    await h.listener.ensure(1_000);
    expect(h.listens).toHaveLength(1);
  });

  it("an acknowledgement of another subscription, or another notification, is not this one's", async () => {
    const h = setup();
    let settled = false;
    const opened = h.listener.ensure(1_000).then(() => (settled = true));
    await h.ack(999);
    await h.notify({ _meta: { [META]: 100 }, notifications: { toolsListChanged: true } }, 'notifications/tools/list_changed');
    await h.notify({ notifications: { toolsListChanged: true } });
    await h.notify('not params');
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await h.ack(100);
    await opened;
    expect(h.listens[0]!.signal.aborted).toBe(false);
  });

  it('a stream that ends before acknowledging is a refusal too, and its end is heard', async () => {
    const { listener, listens, ends } = setup();
    const opened = listener.ensure(1_000);
    listens[0]!.fail();
    await opened;
    expect(ends).toEqual(['end']);
    await listener.ensure(1_000);
    expect(listens).toHaveLength(1);
  });
});

describe('the end of a subscription', () => {
  async function opened() {
    const h = setup();
    const pending = h.listener.ensure(1_000);
    await h.ack(100);
    await pending;
    return h;
  }

  it('the server closing it is heard once; the next ensure opens a new one with a new id', async () => {
    const h = await opened();
    h.listens[0]!.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.ends).toEqual(['end']);
    expect(h.listener.carriesId({ _meta: { [META]: 100 } })).toBe(false);
    const again = h.listener.ensure(1_000);
    expect(h.listens).toHaveLength(2);
    await h.ack(101);
    await again;
    expect(h.listener.carriesId({ _meta: { [META]: 101 } })).toBe(true);
  });

  it("the link's stream end for this id aborts the request; another id's does not; earlier hooks still hear both", async () => {
    const h = await opened();
    h.link.onListenEnd!(7);
    expect(h.listens[0]!.signal.aborted).toBe(false);
    h.link.onListenEnd!(100);
    expect((h.listens[0]!.signal.reason as Error).message).toBe('the subscriptions/listen stream ended');
    expect(h.earlier).toEqual([7, 100]);
  });

  it('a stream that drops is heard as an end', async () => {
    const h = await opened();
    h.listens[0]!.fail();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.ends).toEqual(['end']);
  });

  it('carriesId needs an open subscription and a _meta naming it', () => {
    const { listener } = setup();
    expect(listener.carriesId({ _meta: { [META]: undefined } })).toBe(false);
    expect(listener.carriesId(null)).toBe(false);
    expect(listener.carriesId({ _meta: 'x' })).toBe(false);
  });
});
