/**
 * A Worker that runs agents over MCP tools, with durable human approvals. Each run lives in
 * its own Durable Object (run-object.ts); this front door checks the configuration and the
 * caller's credential, validates requests and forwards them to the run's object.
 *
 *   POST /runs                               { task }                   start a run → 201 RunView
 *   GET  /runs/:id                                                      → RunView
 *   GET  /runs/:id/journal                                              the run's journal (its audit trail)
 *   POST /runs/:id/approvals/:key            { decision, reason? }      resolve an approval, resume → RunView
 *   POST /runs/:id/approvals/:key/links      { decision?, expiresInMs? } an approval link for a person → 201
 *   GET  /links/:link, POST /links/:link     the link's page, and its one decision (link-routes.ts)
 *
 * Every /runs route needs `Authorization: Bearer <API_TOKEN>`; a link is its own credential.
 * With API_TOKEN unset (or any value malformed) every request is a 500 naming it: the Worker
 * never runs open. Every answer passes redact.ts on its way out. See examples/worker/README.md.
 */
import { authenticate, type Decider } from './auth.js';
import { MAX_DEADLINE_MS, readConfig } from './config.js';
import type { Env } from './env.js';
import { errorResponse } from './error-response.js';
import { HttpError, methodNotAllowed, readJsonObject, stringField } from './http.js';
import { linkRoute } from './link-routes.js';
import { MAX_REASON_CHARS, sendToRun, type IssuedLink, type LinkMessage, type ResolveMessage, type StartMessage } from './messages.js';
import { redactResponse, secretForms } from './redact.js';

export { RunObject } from './run-object.js';

const MAX_TASK_CHARS = 10_000;
const MAX_KEY_CHARS = 256;
/** Run ids are the UUIDs POST /runs hands out; anything else names no run. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    let response: Response;
    try {
      response = await route(request, env);
    } catch (error) {
      response = errorResponse(error);
    }
    // Read from the raw bindings, not the checked config, so even a config error is scrubbed.
    return redactResponse(response, secretForms(env));
  },
};

async function route(request: Request, env: Env): Promise<Response> {
  const config = readConfig(env);
  const [first, runId, sub, key, action, ...rest] = new URL(request.url).pathname.split('/').filter((part) => part !== '');
  if (first === 'links' && sub === undefined) return linkRoute(request, env, config, runId);
  const decider = await authenticate(request.headers.get('authorization'), config.apiToken);
  if (first !== 'runs' || rest.length > 0) throw new HttpError(404, 'request.not_found', 'no such route; see POST /runs');
  if (runId === undefined) {
    if (request.method !== 'POST') throw methodNotAllowed('POST');
    return start(request, env);
  }
  if (!RUN_ID.test(runId)) throw new HttpError(404, 'run.not_found', 'no such run');
  if (sub === undefined || (sub === 'journal' && key === undefined)) {
    if (request.method !== 'GET') throw methodNotAllowed('GET');
    return sendToRun(env, runId, sub === undefined ? '/view' : '/journal');
  }
  if (sub !== 'approvals' || key === undefined || (action !== undefined && action !== 'links')) throw new HttpError(404, 'request.not_found', 'no such route on a run');
  if (request.method !== 'POST') throw methodNotAllowed('POST');
  const body = await readJsonObject(request);
  return action === 'links' ? issueLink(request, env, runId, approvalKey(key), body) : resolve(env, runId, approvalKey(key), body, decider);
}

async function start(request: Request, env: Env): Promise<Response> {
  const task = stringField(await readJsonObject(request), 'task', MAX_TASK_CHARS, true);
  const runId = crypto.randomUUID();
  const message: StartMessage = { runId, task };
  const answer = await sendToRun(env, runId, '/start', message);
  const response = new Response(answer.body, answer);
  if (answer.status === 201) response.headers.set('location', `/runs/${runId}`);
  return response;
}

function resolve(env: Env, runId: string, key: string, body: Record<string, unknown>, decider: Decider): Promise<Response> {
  const decision = body['decision'];
  if (decision !== 'allow' && decision !== 'deny') throw new HttpError(400, 'request.invalid_body', '"decision" must be "allow" or "deny"');
  const reason = stringField(body, 'reason', MAX_REASON_CHARS, false);
  const message: ResolveMessage = { key, decision, decider, ...(reason === undefined ? {} : { reason }) };
  return sendToRun(env, runId, '/resolve', message);
}

async function issueLink(request: Request, env: Env, runId: string, key: string, body: Record<string, unknown>): Promise<Response> {
  const { decision, expiresInMs } = body;
  if (decision !== undefined && decision !== 'allow' && decision !== 'deny') throw new HttpError(400, 'request.invalid_body', '"decision" must be "allow", "deny" or absent (the holder chooses)');
  if (expiresInMs !== undefined && !(Number.isSafeInteger(expiresInMs) && (expiresInMs as number) >= 1 && (expiresInMs as number) <= MAX_DEADLINE_MS)) {
    throw new HttpError(400, 'request.invalid_body', `"expiresInMs" must be a whole number of milliseconds from 1 to ${MAX_DEADLINE_MS}`);
  }
  const message: LinkMessage = { key, ...(decision === undefined ? {} : { decision }), ...(expiresInMs === undefined ? {} : { expiresInMs: expiresInMs as number }) };
  const answer = await sendToRun(env, runId, '/link', message);
  if (answer.status !== 201) return answer;
  const issued = (await answer.json()) as IssuedLink;
  return Response.json({ ...issued, url: new URL(issued.path, request.url).href }, { status: 201 });
}

function approvalKey(segment: string): string {
  let key: string;
  try {
    key = decodeURIComponent(segment);
  } catch {
    throw new HttpError(404, 'approval.not_found', 'no such approval');
  }
  if (key.length > MAX_KEY_CHARS) throw new HttpError(404, 'approval.not_found', 'no such approval');
  return key;
}
