/**
 * What the front door (index.ts) sends a run's object (run-object.ts), and what it gets back
 * beyond RunViews. The front has already checked the caller's credential and the message's
 * fields; the object checks everything that depends on the run's journal.
 */
import type { LinkRequest } from './approvals.js';
import type { Decider } from './auth.js';
import { HttpError } from './http.js';
import type { LinkClaims } from './links.js';
import type { Env } from './env.js';

/** A reason is read by the model: it informs rather than floods (the engine keeps as much). */
export const MAX_REASON_CHARS = 2_000;

export interface StartMessage {
  readonly runId: string;
  readonly task: string;
}

export interface ResolveMessage {
  readonly key: string;
  readonly decision: 'allow' | 'deny';
  readonly reason?: string;
  /** Who decides, journaled with the resolution: the API token's id or `link:<id>`. */
  readonly decider: Decider;
  /** Set when the decision came through an approval link (already verified by the front). */
  readonly link?: LinkClaims;
}

export type LinkMessage = LinkRequest;

export interface LinkViewMessage {
  readonly claims: LinkClaims;
}

/** A new approval link: the path to send a person, and what it allows. */
export interface IssuedLink {
  readonly path: string;
  readonly linkId: string;
  readonly runId: string;
  readonly key: string;
  readonly decision?: 'allow' | 'deny';
  readonly expiresAt: string;
}

export function linksOff(): HttpError {
  return new HttpError(500, 'config.missing_key', 'approval links need the APPROVAL_LINK_SECRET secret (npx wrangler secret put APPROVAL_LINK_SECRET)');
}

/** Sends `message` to the object of run `runId` (one object per run, by name). */
export function sendToRun(env: Env, runId: string, path: string, message?: StartMessage | ResolveMessage | LinkMessage | LinkViewMessage): Promise<Response> {
  const stub = env.RUNS.get(env.RUNS.idFromName(runId));
  const init = message === undefined ? { method: 'GET' } : { method: 'POST', body: JSON.stringify(message) };
  return stub.fetch(new Request(`https://run${path}`, init));
}
