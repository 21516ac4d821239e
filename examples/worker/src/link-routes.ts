/**
 * The two routes an approval link opens, for a person who holds no API token:
 *   GET  /links/:link   a page showing the call that waits and a form to decide it
 *   POST /links/:link   the decision (`decision` and an optional `reason`, as a form or JSON)
 * The link is the credential: verified here (links.ts: signed by this Worker, not expired),
 * then checked by the run's object against its journal (not used yet, the approval still
 * open). A GET never decides, so a mail scanner that follows the link changes nothing. The
 * decision is journaled with `decider: 'link:<id>'`. The answer names the run, the approval
 * and how the run stands, not the run's value or its other approvals: the link grants this
 * one decision, not a view of the run.
 */
import type { WorkerConfig } from './config.js';
import type { Env } from './env.js';
import { HttpError, methodNotAllowed, readFields, stringField } from './http.js';
import { decidedPage, linkPage } from './link-page.js';
import { verifyLink } from './links.js';
import type { LinkView } from './approvals.js';
import { linksOff, MAX_REASON_CHARS, sendToRun, type ResolveMessage } from './messages.js';
import type { RunView } from './run-view.js';

export async function linkRoute(request: Request, env: Env, config: WorkerConfig, link: string | undefined): Promise<Response> {
  if (link === undefined) throw new HttpError(404, 'request.not_found', 'an approval link is /links/<link>');
  if (request.method !== 'GET' && request.method !== 'POST') throw methodNotAllowed('GET, POST');
  if (config.linkSecret === undefined) throw linksOff();
  const claims = await verifyLink(link, config.linkSecret, Date.now());
  if (request.method === 'GET') {
    const answer = await sendToRun(env, claims.runId, '/link-view', { claims });
    return answer.ok ? linkPage((await answer.json()) as LinkView) : answer;
  }
  const { fields, form } = await readFields(request);
  const decision = fields['decision'] ?? claims.decision;
  if (decision !== 'allow' && decision !== 'deny') throw new HttpError(400, 'request.invalid_body', '"decision" must be "allow" or "deny"');
  if (claims.decision !== undefined && decision !== claims.decision) {
    throw new HttpError(403, 'link.wrong_decision', `this approval link can only ${claims.decision}`);
  }
  const reason = stringField(fields, 'reason', MAX_REASON_CHARS, false);
  const message: ResolveMessage = { key: claims.key, decision, decider: `link:${claims.id}`, link: claims, ...(reason === undefined || reason === '' ? {} : { reason }) };
  const answer = await sendToRun(env, claims.runId, '/resolve', message);
  if (!answer.ok) return answer;
  const { runId, status } = (await answer.json()) as RunView;
  const decided = { runId, key: claims.key, decision, status };
  return form ? decidedPage(decided) : Response.json(decided);
}
