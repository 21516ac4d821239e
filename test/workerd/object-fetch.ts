/**
 * The Node side of fixtures/forward-to-object.ts: a fetch to one named Durable Object of a
 * Miniflare whose Worker forwards to it, made with dispatchFetch (see that file for why not
 * Miniflare's namespace proxy).
 */
import type { Miniflare } from 'miniflare';
import { OBJECT_HEADER } from './fixtures/forward-to-object.js';

/** What the tests read of an answer (Miniflare's undici Response has it all). */
export interface ObjectResponse {
  readonly ok: boolean;
  readonly status: number;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

export type ObjectFetch = (url: string, init?: { method?: string; body?: string }) => Promise<ObjectResponse>;

export function objectFetch(mf: Miniflare, name: string): ObjectFetch {
  return (url, init = {}) => mf.dispatchFetch(url, { ...init, headers: { [OBJECT_HEADER]: name } });
}
