/**
 * A Worker that runs agents over MCP tools, with durable human approvals. Each run lives in
 * its own Durable Object (run-object.ts); this front door validates requests and forwards
 * them to the run's object.
 *
 *   POST /runs                        { task }                    start a run → 201 RunView
 *   GET  /runs/:id                                                → RunView
 *   GET  /runs/:id/journal                                        the run's journal (its audit trail)
 *   POST /runs/:id/approvals/:key     { decision, reason? }       resolve an approval, resume → RunView
 *
 * RunView is `{ runId, status, pending: [{ key, toolName, input, deadlineAt? }], value?, error? }`.
 * Every error is JSON `{ error: { code, message } }`. See examples/worker/README.md.
 */
import type { Env } from './env.js';
import { errorResponse, HttpError, methodNotAllowed, readJsonObject, stringField } from './http.js';
import type { ResolveMessage, StartMessage } from './run-object.js';

export { RunObject } from './run-object.js';

const MAX_TASK_CHARS = 10_000;
const MAX_REASON_CHARS = 2_000;
const MAX_KEY_CHARS = 256;
/** Run ids are the UUIDs POST /runs hands out; anything else names no run. */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      return await route(request, env);
    } catch (error) {
      return errorResponse(error);
    }
  },
};

async function route(request: Request, env: Env): Promise<Response> {
  const [first, runId, sub, key, ...rest] = new URL(request.url).pathname.split('/').filter((part) => part !== '');
  if (first !== 'runs' || rest.length > 0) throw new HttpError(404, 'request.not_found', 'no such route; see POST /runs');
  if (runId === undefined) {
    if (request.method !== 'POST') throw methodNotAllowed('POST');
    return start(request, env);
  }
  if (!RUN_ID.test(runId)) throw new HttpError(404, 'run.not_found', 'no such run');
  if (sub === undefined || (sub === 'journal' && key === undefined)) {
    if (request.method !== 'GET') throw methodNotAllowed('GET');
    return forward(env, runId, sub === undefined ? '/view' : '/journal');
  }
  if (sub !== 'approvals' || key === undefined) throw new HttpError(404, 'request.not_found', 'no such route on a run');
  if (request.method !== 'POST') throw methodNotAllowed('POST');
  const body = await readJsonObject(request);
  const decision = body['decision'];
  if (decision !== 'allow' && decision !== 'deny') throw new HttpError(400, 'request.invalid_body', '"decision" must be "allow" or "deny"');
  const reason = stringField(body, 'reason', MAX_REASON_CHARS, false);
  const message: ResolveMessage = { key: approvalKey(key), decision, ...(reason === undefined ? {} : { reason }) };
  return forward(env, runId, '/resolve', message);
}

async function start(request: Request, env: Env): Promise<Response> {
  const task = stringField(await readJsonObject(request), 'task', MAX_TASK_CHARS, true);
  const runId = crypto.randomUUID();
  const message: StartMessage = { runId, task };
  const answer = await forward(env, runId, '/start', message);
  const response = new Response(answer.body, answer);
  if (answer.status === 201) response.headers.set('location', `/runs/${runId}`);
  return response;
}

function forward(env: Env, runId: string, path: string, message?: StartMessage | ResolveMessage): Promise<Response> {
  const stub = env.RUNS.get(env.RUNS.idFromName(runId));
  const init = message === undefined ? { method: 'GET' } : { method: 'POST', body: JSON.stringify(message) };
  return stub.fetch(new Request(`https://run${path}`, init));
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
