/**
 * Tool-list changes on the 2026-07-28 wire come on a `subscriptions/listen` stream (there is
 * no GET stream): a long-lived request whose answer is the stream itself. It is opened before
 * a sweep, when the server's discover result says its tool list can change, and waits at
 * most `ackMs` for `notifications/subscriptions/acknowledged`; a server that does not
 * acknowledge, or acknowledges without `toolsListChanged`, is not asked again on this
 * connection, and its lists are trusted for their `ttlMs` alone. Notifications count only
 * when they carry this subscription's id (on stdio every subscription shares the channel).
 * When the subscription ends, however it ends (the server closed it, the stream dropped),
 * `onEnd` hears of it: a change in the gap would go unseen, so the list must be fetched again,
 * and the next sweep opens a new subscription.
 */
import * as z from 'zod/v4';
import { isRecord } from '../../records.js';
import type { WireClient } from '../wire-client.js';
import type { ModernLink } from './link.js';
import { META_SUBSCRIPTION } from './revision.js';

type Id = string | number;

/** The longest timer a runtime keeps (about 24.8 days): the request lives as long as its stream. */
const FOREVER_MS = 2 ** 31 - 1;
const AnyResult = z.custom<Record<string, unknown>>(isRecord);

export class ToolListener {
  private id: Id | undefined;
  private open: AbortController | undefined;
  private refused = false;
  private acknowledged: ((honoured: boolean) => void) | undefined;

  constructor(
    private readonly client: WireClient,
    private readonly link: ModernLink,
    private readonly onEnd: () => void,
  ) {
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method !== 'notifications/subscriptions/acknowledged' || !this.carriesId(notification.params)) return;
      const filter = isRecord(notification.params) ? notification.params['notifications'] : undefined;
      this.acknowledged?.(isRecord(filter) && filter['toolsListChanged'] === true);
    };
    const ended = link.onListenEnd;
    link.onListenEnd = (id) => {
      if (id === this.id) this.open?.abort(new Error('the subscriptions/listen stream ended'));
      ended?.(id);
    };
  }

  /** Whether a notification's `_meta` names the open subscription. */
  carriesId(params: unknown): boolean {
    const meta = isRecord(params) ? params['_meta'] : undefined;
    return this.id !== undefined && isRecord(meta) && meta[META_SUBSCRIPTION] === this.id;
  }

  /** Opens the subscription unless one is open (or the server would not have one). */
  async ensure(ackMs: number): Promise<void> {
    if (this.open !== undefined || this.refused) return;
    const cancel = new AbortController();
    this.open = cancel;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const acked = new Promise<boolean>((resolve) => {
      this.acknowledged = resolve;
      timer = setTimeout(() => resolve(false), ackMs);
    });
    const request = { method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } };
    const listening = this.client.call(request as never, AnyResult, { timeout: FOREVER_MS }, cancel.signal);
    // The request went out synchronously: the link saw its id.
    this.id = this.link.lastListenId;
    void listening.then(
      () => this.ended(),
      () => this.ended(),
    );
    const honoured = await Promise.race([acked, listening.then(() => false, () => false)]);
    clearTimeout(timer);
    this.acknowledged = undefined;
    if (honoured) return;
    this.refused = true;
    cancel.abort(new Error('the server did not acknowledge subscriptions/listen with toolsListChanged'));
  }

  /** The open subscription's request settled: only `ensure` opens one, and only when none is. */
  private ended(): void {
    this.open = undefined;
    this.id = undefined;
    this.onEnd();
  }
}
