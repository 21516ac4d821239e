/**
 * What may be done with one approval of a run, read from its journal: whether it can still be
 * decided (and why not), whether an approval link already made its one decision, the claims of
 * a new link, and what a link's page shows. The journal is the truth: a link has decided when
 * a resolution names it as its decider, in the same entry that closed the approval, so "one
 * decision per link" holds across requests, restarts and races alike.
 *
 * Pure (types only), so test/node/example-worker-config.test.ts loads it directly.
 */
import type { JournalEntry } from '@rulvar/core';
import { HttpError } from './http.js';
import type { LinkClaims } from './links.js';

type Approval = Extract<JournalEntry, { type: 'approval' }>;
type Resolution = Extract<JournalEntry, { type: 'resolution' }>;

export interface ApprovalState {
  readonly approval?: Approval;
  readonly resolution?: Resolution;
  readonly ended: boolean;
}

/** The approval asked under `key`, the resolution that closed it (the first journaled), and whether the run ended. */
export function approvalState(entries: readonly JournalEntry[], key: string): ApprovalState {
  const approval = entries.find((e): e is Approval => e.type === 'approval' && e.key === key);
  const resolution = entries.find((e): e is Resolution => e.type === 'resolution' && e.key === key);
  const ended = entries.some((e) => e.type === 'run:end');
  return { ended, ...(approval === undefined ? {} : { approval }), ...(resolution === undefined ? {} : { resolution }) };
}

/**
 * The approval, if a decision on it may be attempted now; else the refusal. A passed deadline
 * is not refused here: the engine journals its timeout first, and the caller answers 409 then.
 */
export function decidable(runId: string, key: string, state: ApprovalState): Approval {
  const { approval, resolution, ended } = state;
  if (approval === undefined) throw new HttpError(404, 'approval.not_found', `run ${runId} has no approval ${JSON.stringify(key)}`);
  if (resolution !== undefined) throw closed(key, `it was already resolved (${resolution.decision}, by ${resolution.by})`);
  if (ended) throw closed(key, 'the run has ended without it');
  return approval;
}

/** A link decides once: refused when a resolution of this run already names it. */
export function checkLinkUnused(entries: readonly JournalEntry[], linkId: string): void {
  const decider = `link:${linkId}`;
  const used = entries.find((e): e is Resolution => e.type === 'resolution' && e.decider === decider);
  if (used !== undefined) throw new HttpError(409, 'link.used', `this approval link already decided (${used.decision}, at ${used.at}); a link decides once`);
}

export interface LinkRequest {
  readonly key: string;
  readonly decision?: 'allow' | 'deny';
  /** How long the link stays good; never past the approval's deadline. */
  readonly expiresInMs?: number;
}

/** The claims of a new link for an approval still open at `now`, expiring at its deadline at the latest. */
export function claimsForLink(runId: string, state: ApprovalState, request: LinkRequest, now: number, id: string, fallbackMs: number): LinkClaims {
  const approval = decidable(runId, request.key, state);
  const deadline = approval.deadlineAt === undefined ? now + fallbackMs : Date.parse(approval.deadlineAt);
  if (deadline <= now) throw closed(request.key, 'its deadline has passed');
  const expiresAt = Math.min(deadline, now + (request.expiresInMs ?? fallbackMs));
  return { runId, key: request.key, ...(request.decision === undefined ? {} : { decision: request.decision }), expiresAt, id };
}

/** What a link's page shows: the call waiting for a decision, and what the link may decide. */
export interface LinkView {
  readonly runId: string;
  readonly key: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly deadlineAt?: string;
  readonly decision?: 'allow' | 'deny';
  readonly expiresAt: string;
}

export function linkView(entries: readonly JournalEntry[], claims: LinkClaims): LinkView {
  checkLinkUnused(entries, claims.id);
  const { toolName, input, deadlineAt } = decidable(claims.runId, claims.key, approvalState(entries, claims.key));
  return {
    runId: claims.runId,
    key: claims.key,
    toolName,
    input,
    ...(deadlineAt === undefined ? {} : { deadlineAt }),
    ...(claims.decision === undefined ? {} : { decision: claims.decision }),
    expiresAt: new Date(claims.expiresAt).toISOString(),
  };
}

export function closed(key: string, why: string): HttpError {
  return new HttpError(409, 'approval.closed', `approval ${JSON.stringify(key)} is closed: ${why}`);
}
