/**
 * examples/worker is safe to deploy as it is: built and run as users deploy it (see
 * example-worker-harness.ts), it refuses every request while API_TOKEN is unset, answers 401
 * to every API route without the right bearer token, and lets a person without the token
 * decide one approval through a signed link: once (a reused link is refused, also when two
 * requests race), never after it expired, never when forged or altered. Who decided is
 * journaled as a non-secret id. No answer, error or journal quotes a secret, whatever the
 * caller or the remote server sent.
 */
import { rm } from 'node:fs/promises';
import process from 'node:process';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/index.js';
import { tokenId } from '../../examples/worker/src/auth.js';
import { newLinkId, signLink } from '../../examples/worker/src/links.js';
import { API_TOKEN, buildWorker, client, configuredOptions, LINK_SECRET, SECRETS, startExample, startRemote, TOKEN, type Answer, type Built, type Remote } from './example-worker-harness.js';

// Built from dist/: runs under npm test, which builds first and sets RULVAR_TEST_DIST=1.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const NO_RUN = '00000000-0000-4000-8000-000000000000';

interface View {
  runId: string;
  status: string;
  pending: { key: string; toolName: string }[];
}
interface Issued {
  url: string;
  linkId: string;
  runId: string;
  key: string;
  decision?: string;
  expiresAt: string;
}
type Call = ReturnType<typeof client>;

let built: Built;
let remote: Remote;
const instances: Miniflare[] = [];
const seen: string[] = [];
let open: Miniflare;
let guarded: Miniflare;
let linkless: Miniflare;
let api: Call;
let person: Call;

beforeAll(async () => {
  if (!enabled) return;
  [built, remote] = await Promise.all([buildWorker(), startRemote()]);
  const options = await configuredOptions();
  const start = (vars: Record<string, string>) => {
    const mf = startExample(built, options, { MCP_URL: remote.url, ...vars });
    instances.push(mf);
    return mf;
  };
  open = start({ MCP_TOKEN: TOKEN });
  guarded = start(SECRETS);
  linkless = start({ API_TOKEN, MCP_TOKEN: TOKEN });
  api = client(guarded, seen);
  person = client(guarded, seen, null);
  await Promise.all(instances.map((mf) => mf.ready));
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await Promise.all(instances.map((mf) => mf.dispose()));
  await remote?.close();
  await rm(built.outdir, { recursive: true, force: true });
});

/** Every route, with a body where it takes one. */
const routes = (runId: string, key: string): [string, string, unknown][] => [
  ['POST', '/runs', { task: 'anything' }],
  ['GET', `/runs/${runId}`, undefined],
  ['GET', `/runs/${runId}/journal`, undefined],
  ['POST', `/runs/${runId}/approvals/${key}`, { decision: 'allow' }],
  ['POST', `/runs/${runId}/approvals/${key}/links`, {}],
  ['GET', '/runs', undefined],
  ['GET', '/elsewhere', undefined],
];

async function suspended(task: string): Promise<{ runId: string; key: string }> {
  const answer = await api('POST', '/runs', { task });
  const view = answer.body as View;
  expect(view).toMatchObject({ status: 'suspended', pending: [{ toolName: 'notes_save_note' }] });
  return { runId: view.runId, key: view.pending[0]?.key ?? '' };
}

async function mint(runId: string, key: string, body: Record<string, unknown> = {}): Promise<Issued & { path: string }> {
  const answer = await api('POST', `/runs/${runId}/approvals/${key}/links`, body);
  expect(answer.status).toBe(201);
  const issued = answer.body as Issued;
  return { ...issued, path: new URL(issued.url).pathname };
}

async function journalOf(runId: string): Promise<JournalEntry[]> {
  return (await api('GET', `/runs/${runId}/journal`)).body as JournalEntry[];
}

const errorOf = (answer: Answer) => ({ status: answer.status, code: (answer.body as { error?: { code?: string } }).error?.code });

describe.runIf(enabled)('examples/worker credentials', () => {
  it('with no API_TOKEN set, every request is a 500 naming it, with or without a credential, and nothing runs', async () => {
    const before = remote.endpoint.requests.length;
    for (const authorization of [null, `Bearer ${API_TOKEN}`, 'Bearer anything']) {
      const call = client(open, seen, authorization);
      for (const [method, route, body] of [...routes(NO_RUN, 'k'), ['GET', '/links/abc.def', undefined] as [string, string, unknown]]) {
        const answer = await call(method, route, body);
        expect({ route, status: answer.status, body: answer.body }).toEqual({
          route,
          status: 500,
          body: { error: { code: 'config.missing_key', message: expect.stringContaining('API_TOKEN secret') } },
        });
      }
    }
    expect(remote.endpoint.requests.length).toBe(before);
  });

  it('a missing, wrong or malformed credential is a 401 with a Bearer challenge on every API route; nothing runs or changes', async () => {
    const { runId, key } = await suspended('guarded');
    const journal = await journalOf(runId);
    const before = remote.endpoint.requests.length;
    const wrong: [string | null, string][] = [
      [null, 'auth.required'],
      ['', 'auth.required'],
      ['Bearer wrong', 'auth.invalid'],
      [`Bearer ${API_TOKEN}x`, 'auth.invalid'],
      [`Bearer ${API_TOKEN.slice(0, -1)}`, 'auth.invalid'],
      [`Bearer ${LINK_SECRET}`, 'auth.invalid'],
      [`Bearer ${TOKEN}`, 'auth.invalid'],
      [API_TOKEN, 'auth.invalid'],
      [`Basic ${btoa(`user:${API_TOKEN}`)}`, 'auth.invalid'],
      [`Bearer ${API_TOKEN} ${API_TOKEN}`, 'auth.invalid'],
    ];
    for (const [authorization, code] of wrong) {
      const call = client(guarded, seen, authorization);
      for (const [method, route, body] of routes(runId, key)) {
        const answer = await call(method, route, body);
        expect({ authorization, route, ...errorOf(answer) }).toEqual({ authorization, route, status: 401, code });
        expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="rulvar-worker", error="invalid_(request|token)"$/);
      }
    }
    expect(remote.endpoint.requests.length).toBe(before);
    expect(await journalOf(runId)).toEqual(journal);
    // The right token, in any case of the scheme.
    expect((await client(guarded, seen, `bearer ${API_TOKEN}`)('GET', `/runs/${runId}`)).status).toBe(200);
  });
});

describe.runIf(enabled)('examples/worker approval links', () => {
  it('a link lets a person see the call and decide it once; the journal names the link, never a secret', async () => {
    const { runId, key } = await suspended('linked');
    const link = await mint(runId, key);
    expect(link).toMatchObject({ runId, key, linkId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(link.decision).toBeUndefined();

    const page = await person('GET', link.path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).toContain('notes_save_note');
    expect(page.body).toContain('value="allow"');
    expect(page.body).toContain('value="deny"');
    // Looking decided nothing (a mail scanner following the link changes nothing).
    expect((await journalOf(runId)).filter((e) => e.type === 'resolution')).toEqual([]);

    const decided = await person('POST', link.path, { decision: 'allow', reason: 'fine by me' });
    expect(decided).toMatchObject({ status: 200, body: { runId, key, decision: 'allow', status: 'completed' } });
    const resolutions = (await journalOf(runId)).filter((e) => e.type === 'resolution');
    expect(resolutions).toMatchObject([{ key, decision: 'allow', by: 'operator', reason: 'fine by me', decider: `link:${link.linkId}` }]);

    // Reused: refused, typed, whether to look or to decide again.
    const journal = await journalOf(runId);
    for (const [method, body] of [['POST', { decision: 'deny' }], ['GET', undefined]] as const) {
      const again = await person(method, link.path, body);
      expect({ method, ...errorOf(again) }).toEqual({ method, status: 409, code: 'link.used' });
    }
    expect(await journalOf(runId)).toEqual(journal);
    for (const secret of Object.values(SECRETS)) expect(seen.filter((text) => text.includes(secret))).toEqual([]);
  });

  it('a link bound to one decision makes only that one, from an HTML form too', async () => {
    const { runId, key } = await suspended('bound');
    const link = await mint(runId, key, { decision: 'deny' });
    expect(link.decision).toBe('deny');
    const page = await person('GET', link.path);
    expect(page.body).toContain('value="deny"');
    expect(page.body).not.toContain('value="allow"');
    expect(errorOf(await person('POST', link.path, { decision: 'allow' }))).toEqual({ status: 403, code: 'link.wrong_decision' });
    const form = await person('POST', link.path, 'reason=not+today', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(200);
    expect(form.body).toContain('Recorded: deny');
    expect((await journalOf(runId)).filter((e) => e.type === 'resolution')).toMatchObject([{ decision: 'deny', reason: 'not today', decider: `link:${link.linkId}` }]);
  });

  it('two requests racing with one link: one decides, the other is 409 link.used; one resolution is journaled', async () => {
    const { runId, key } = await suspended('race');
    const link = await mint(runId, key);
    const answers = await Promise.all([person('POST', link.path, { decision: 'allow' }), person('POST', link.path, { decision: 'deny' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.findIndex((a) => a.status === 200);
    expect(errorOf(answers[1 - winner] as Answer)).toEqual({ status: 409, code: 'link.used' });
    const resolutions = (await journalOf(runId)).filter((e) => e.type === 'resolution');
    expect(resolutions).toMatchObject([{ decision: winner === 0 ? 'allow' : 'deny', decider: `link:${link.linkId}` }]);
  });

  it('forged, altered and expired links are refused, typed, to look and to decide, and change nothing', async () => {
    const { runId, key } = await suspended('forged');
    const link = await mint(runId, key);
    const [claims = '', mac = ''] = link.path.slice('/links/'.length).split('.');
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const now = Date.now();
    const other = { runId, key, expiresAt: now + 60_000, id: newLinkId() };
    const forged: [string, string, number, string][] = [
      ['a claim changed', `${flip(claims, 5)}.${mac}`, 403, 'link.invalid'],
      ['the mac changed', `${claims}.${flip(mac, 10)}`, 403, 'link.invalid'],
      ['the mac cut', `${claims}.${mac.slice(0, -2)}`, 403, 'link.invalid'],
      ['signed with another secret', await signLink(other, `${LINK_SECRET}-not`), 403, 'link.invalid'],
      ['signed with the API token', await signLink(other, API_TOKEN), 403, 'link.invalid'],
      ['garbage', 'abc', 403, 'link.invalid'],
      ['expired', await signLink({ ...other, expiresAt: now - 1 }, LINK_SECRET), 410, 'link.expired'],
    ];
    const journal = await journalOf(runId);
    for (const [what, token, status, code] of forged) {
      for (const method of ['GET', 'POST']) {
        const answer = await person(method, `/links/${token}`, method === 'POST' ? { decision: 'allow' } : undefined);
        expect({ what, method, ...errorOf(answer) }).toEqual({ what, method, status, code });
      }
    }
    expect(await journalOf(runId)).toEqual(journal);
    // The same claims under the right secret decide: what was refused was the signature.
    expect((await person('POST', `/links/${await signLink(other, LINK_SECRET)}`, { decision: 'deny' })).status).toBe(200);
  });

  it('a link minted to expire soon works until then and is 410 link.expired from then on', async () => {
    const { runId, key } = await suspended('short-lived');
    const link = await mint(runId, key, { expiresInMs: 1_500 });
    const expiresAt = Date.parse(link.expiresAt);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(1_500);
    expect((await person('GET', link.path)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 10)));
    expect(errorOf(await person('POST', link.path, { decision: 'allow' }))).toEqual({ status: 410, code: 'link.expired' });
    expect((await journalOf(runId)).filter((e) => e.type === 'resolution')).toEqual([]);
  });

  it('links need APPROVAL_LINK_SECRET: without it none is issued or accepted (500 naming it); the API still works', async () => {
    const call = client(linkless, seen);
    const run = (await call('POST', '/runs', { task: 'no links' })).body as View;
    expect(run.status).toBe('suspended');
    const key = run.pending[0]?.key ?? '';
    const minted = await call('POST', `/runs/${run.runId}/approvals/${key}/links`, {});
    expect(minted).toMatchObject({ status: 500, body: { error: { code: 'config.missing_key', message: expect.stringContaining('APPROVAL_LINK_SECRET') } } });
    const token = await signLink({ runId: run.runId, key, expiresAt: Date.now() + 60_000, id: newLinkId() }, LINK_SECRET);
    expect(errorOf(await client(linkless, seen, null)('POST', `/links/${token}`, { decision: 'allow' }))).toEqual({ status: 500, code: 'config.missing_key' });
    expect((await call('POST', `/runs/${run.runId}/approvals/${key}`, { decision: 'deny' })).status).toBe(200);
  });
});

describe.runIf(enabled)('examples/worker answers no secret', () => {
  it('a task quoting every secret, raw and encoded, comes back redacted from every route', async () => {
    const encodings = (s: string) => [s, s.toUpperCase(), encodeURIComponent(`&${s}`), btoa(s), btoa(`x${s}`), btoa(`xy${s}`), JSON.stringify({ s })];
    const task = Object.values(SECRETS).flatMap(encodings).join(' | ');
    const answer = await api('POST', '/runs', { task: task.slice(0, 10_000) });
    const { runId, pending } = answer.body as View;
    const texts = [answer, await api('GET', `/runs/${runId}`), await api('GET', `/runs/${runId}/journal`)].map((a) => JSON.stringify(a.body));
    expect(texts[2]).toContain('[redacted]');
    const link = await mint(runId, pending[0]?.key ?? '');
    texts.push(String((await person('GET', link.path)).body));
    for (const text of texts) {
      for (const secret of Object.values(SECRETS)) {
        for (const form of encodings(secret).slice(0, 6)) expect(text.toLowerCase()).not.toContain(form.toLowerCase().slice(4, -4));
      }
    }
    expect(await tokenId(API_TOKEN)).not.toContain(API_TOKEN.slice(0, 8));
  });
});
