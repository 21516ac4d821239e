/**
 * The pages an approval link shows a person: the call that waits (tool and input, as the
 * model asked for it), with buttons for what the link may decide, and a short confirmation
 * after. Everything shown came from a model or a server, so all of it is HTML-escaped; the
 * pages load nothing, run no script, cannot be framed, and send no Referer (the link is a
 * credential, and would otherwise travel to any page it linked to).
 */
import type { LinkView } from './approvals.js';

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

export function linkPage(view: LinkView): Response {
  const choices = view.decision === undefined ? (['allow', 'deny'] as const) : [view.decision];
  const buttons = choices.map((d) => `<button name="decision" value="${d}">${d === 'allow' ? 'Allow' : 'Deny'}</button>`).join(' ');
  const body = `<h1>Approve a tool call?</h1>
<p>Run <code>${escape(view.runId)}</code> waits for a decision on <b>${escape(view.toolName)}</b>${view.deadlineAt === undefined ? '' : ` (denied by itself at ${escape(view.deadlineAt)})`}.</p>
<pre>${escape(JSON.stringify(view.input, null, 2) ?? "null")}</pre>
<form method="post"><p><label>Reason (the agent reads it): <input name="reason" maxlength="2000"></label></p><p>${buttons}</p></form>
<p><small>This link decides once and expires at ${escape(view.expiresAt)}.</small></p>`;
  return page(body, 200);
}

export function decidedPage(decided: { runId: string; key: string; decision: string; status: string }): Response {
  return page(`<h1>Recorded: ${escape(decided.decision)}</h1><p>The run is now ${escape(decided.status)}. This link cannot decide again.</p>`, 200);
}

function page(body: string, status: number): Response {
  return new Response(`<!doctype html><html><head><meta charset="utf-8"><title>Approval</title></head><body style="font-family:sans-serif;max-width:50em">${body}</body></html>`, { status, headers: HEADERS });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
