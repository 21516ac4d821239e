/**
 * examples/worker's pure modules, loaded directly in Node (no build, no workerd), so a
 * mutation run over them sees these tests: every environment value refused typed when it is
 * missing or malformed (never read as a default), the bearer check, approval links signed and
 * verified (expiry to the millisecond, on an explicit clock), the response redaction in each
 * encoding, and what the journal says an approval or a link may still do. The same code runs
 * under plain Miniflare in test/workerd/example-worker*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/index.js';
import { approvalState, checkLinkUnused, claimsForLink, decidable, linkView } from '../../examples/worker/src/approvals.js';
import { authenticate, sameSecret, tokenId } from '../../examples/worker/src/auth.js';
import { DEFAULT_DEADLINE_MS, MAX_DEADLINE_MS, MIN_SCRUBBED_CHARS, readConfig, type ConfigSource } from '../../examples/worker/src/config.js';
import { HttpError } from '../../examples/worker/src/http.js';
import { newLinkId, signLink, verifyLink, type LinkClaims } from '../../examples/worker/src/links.js';
import { redactResponse, redactText, secretForms } from '../../examples/worker/src/redact.js';
import { viewOf } from '../../examples/worker/src/run-view.js';

const API_TOKEN = 'a'.repeat(20) + '0123456789abcdef';
const LINK_SECRET = 'l'.repeat(20) + 'fedcba9876543210';
const BASE: ConfigSource = { API_TOKEN, MCP_URL: 'https://mcp.example.com/mcp' };

function refusal(run: () => unknown): { status: number; code: string; message: string } | 'accepted' {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  return 'accepted';
}

async function refusalOf(run: () => Promise<unknown>): Promise<{ status: number; code: string } | 'accepted'> {
  try {
    await run();
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, code: error.code };
    throw error;
  }
  return 'accepted';
}

describe('examples/worker config: every value refused typed, never guessed', () => {
  it('reads a complete configuration', () => {
    expect(readConfig({ ...BASE, APPROVAL_LINK_SECRET: LINK_SECRET, MCP_TOKEN: 'mcp-token', APPROVAL_DEADLINE_MS: ' 2000 ', MODEL: 'openai:gpt', OPENAI_API_KEY: 'sk-1-key-',  MODEL_BASE_URL: 'http://127.0.0.1:1/v1' })).toEqual({
      apiToken: API_TOKEN,
      linkSecret: LINK_SECRET,
      mcpUrl: 'https://mcp.example.com/mcp',
      mcpToken: 'mcp-token',
      approvalDeadlineMs: 2000,
      model: { adapter: 'openai', name: 'openai:gpt', apiKey: 'sk-1-key-', baseURL: 'http://127.0.0.1:1/v1' },
    });
    expect(readConfig(BASE)).toEqual({ apiToken: API_TOKEN, mcpUrl: BASE.MCP_URL, approvalDeadlineMs: DEFAULT_DEADLINE_MS, model: { adapter: 'scripted', name: 'scripted:demo' } });
    expect(DEFAULT_DEADLINE_MS).toBe(86_400_000);
  });

  it('APPROVAL_DEADLINE_MS: whole milliseconds from 1 to a year, as digits or a number; anything else is refused, not read as 24 h', () => {
    const read = (value: unknown) => readConfig({ ...BASE, APPROVAL_DEADLINE_MS: value }).approvalDeadlineMs;
    expect([read('1'), read('2000'), read(2000), read(String(MAX_DEADLINE_MS))]).toEqual([1, 2000, 2000, MAX_DEADLINE_MS]);
    expect(MAX_DEADLINE_MS).toBe(366 * 86_400_000);
    for (const bad of ['', ' ', '0', '-1', '1e3', '0x10', '2000.5', '2000ms', 'abc', '１２', String(MAX_DEADLINE_MS + 1), '9'.repeat(16), 0, -5, 1.5, Number.NaN, true, null]) {
      expect({ bad, refused: refusal(() => read(bad)) }).toEqual({
        bad,
        refused: { status: 500, code: 'config.invalid_value', message: expect.stringContaining('APPROVAL_DEADLINE_MS must be a whole number') },
      });
    }
  });

  it('secrets: API_TOKEN required, both Worker secrets at least 32 visible characters, the link key its own; no message quotes one', () => {
    const cases: [ConfigSource, string, string][] = [
      [{ MCP_URL: BASE.MCP_URL }, 'config.missing_key', 'API_TOKEN secret'],
      [{ ...BASE, API_TOKEN: '' }, 'config.missing_key', 'API_TOKEN secret'],
      [{ ...BASE, API_TOKEN: API_TOKEN.slice(0, 31) }, 'config.invalid_value', 'API_TOKEN must be at least 32'],
      [{ ...BASE, API_TOKEN: `${API_TOKEN}\n` }, 'config.invalid_value', 'API_TOKEN must be visible ASCII'],
      [{ ...BASE, API_TOKEN: `${API_TOKEN} x` }, 'config.invalid_value', 'API_TOKEN must be visible ASCII'],
      [{ ...BASE, API_TOKEN: 42 }, 'config.invalid_value', 'API_TOKEN must be visible ASCII'],
      [{ ...BASE, APPROVAL_LINK_SECRET: LINK_SECRET.slice(0, 31) }, 'config.invalid_value', 'APPROVAL_LINK_SECRET must be at least 32'],
      [{ ...BASE, APPROVAL_LINK_SECRET: API_TOKEN }, 'config.invalid_value', 'APPROVAL_LINK_SECRET must differ'],
      [{ ...BASE, MCP_TOKEN: 'tok en' }, 'config.invalid_value', 'MCP_TOKEN must be visible ASCII'],
      // Shorter than redact.ts can tell from text: echoed back, it would leave in an answer.
      [{ ...BASE, MCP_TOKEN: 'tok1234' }, 'config.invalid_value', 'MCP_TOKEN must be at least 8'],
      [{ ...BASE, MODEL: 'anthropic:claude', ANTHROPIC_API_KEY: 'sk-a' }, 'config.invalid_value', 'ANTHROPIC_API_KEY must be at least 8'],
      [{ ...BASE, MODEL: 'anthropic:claude' }, 'config.missing_key', 'ANTHROPIC_API_KEY secret'],
      [{ ...BASE, MODEL: 'openai:gpt', ANTHROPIC_API_KEY: 'sk-a' }, 'config.missing_key', 'OPENAI_API_KEY secret'],
      [{ ...BASE, MODEL: 'openai:gpt', OPENAI_API_KEY: 'sk-\u00e9' }, 'config.invalid_value', 'OPENAI_API_KEY must be visible ASCII'],
    ];
    for (const [env, code, message] of cases) {
      const refused = refusal(() => readConfig(env));
      expect({ env, refused }).toEqual({ env, refused: { status: 500, code, message: expect.stringContaining(message) } });
      if (refused === 'accepted') continue;
      for (const value of Object.values(env)) if (typeof value === 'string' && value.length > 6 && value !== BASE.MCP_URL) expect(refused.message).not.toContain(value.trim());
    }
    expect(readConfig({ ...BASE, MCP_TOKEN: '' })).not.toHaveProperty('mcpToken');
    // Every secret the Worker accepts is long enough for the redaction to look for.
    for (const binding of ['API_TOKEN', 'APPROVAL_LINK_SECRET', 'MCP_TOKEN', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] as const) {
      expect({ binding, forms: secretForms({ [binding]: 'x'.repeat(MIN_SCRUBBED_CHARS) }).length > 0 }).toEqual({ binding, forms: true });
    }
    expect(readConfig({ ...BASE, APPROVAL_LINK_SECRET: '' })).not.toHaveProperty('linkSecret');
  });

  it('URLs: MCP_URL required, both http(s) and without credentials (the message quotes neither)', () => {
    const cases: [ConfigSource, string, string][] = [
      [{ API_TOKEN }, 'config.missing_key', 'MCP_URL var'],
      [{ ...BASE, MCP_URL: 'mcp.example.com/mcp' }, 'config.invalid_value', 'MCP_URL must be an http or https URL'],
      [{ ...BASE, MCP_URL: 'ftp://mcp.example.com/' }, 'config.invalid_value', 'MCP_URL must be an http or https URL'],
      [{ ...BASE, MCP_URL: 'https://user:hunter2hunter2@mcp.example.com/' }, 'config.invalid_value', 'MCP_URL must not carry credentials'],
      [{ ...BASE, MODEL: 'anthropic:c', ANTHROPIC_API_KEY: 'k-123456', MODEL_BASE_URL: 'javascript:alert(1)' }, 'config.invalid_value', 'MODEL_BASE_URL must be an http or https URL'],
      [{ ...BASE, MODEL_BASE_URL: 'https://:hunter2hunter2@gw.example.com/' }, 'config.invalid_value', 'MODEL_BASE_URL must not carry credentials'],
    ];
    for (const [env, code, message] of cases) {
      const refused = refusal(() => readConfig(env));
      expect({ env, refused }).toEqual({ env, refused: { status: 500, code, message: expect.stringContaining(message) } });
      expect(JSON.stringify(refused)).not.toContain('hunter2');
    }
  });

  it('MODEL: adapterId:model, one of the three adapters', () => {
    expect(readConfig({ ...BASE, MODEL: '  ' }).model).toEqual({ adapter: 'scripted', name: 'scripted:demo' });
    expect(readConfig({ ...BASE, MODEL: 'scripted:x' }).model).toEqual({ adapter: 'scripted', name: 'scripted:x' });
    expect(readConfig({ ...BASE, MODEL: 'anthropic:c', ANTHROPIC_API_KEY: 'k-123456' }).model).toEqual({ adapter: 'anthropic', name: 'anthropic:c', apiKey: 'k-123456' });
    expect(refusal(() => readConfig({ ...BASE, MODEL: 'gemini:pro' }))).toMatchObject({ status: 500, code: 'model.unknown_adapter', message: expect.stringContaining('"gemini"') });
    for (const bad of ['anthropic', ':x', 'openai:', 7]) expect(refusal(() => readConfig({ ...BASE, MODEL: bad }))).toMatchObject({ code: 'config.invalid_value' });
  });
});

describe('examples/worker bearer credential', () => {
  it('accepts exactly the token, refuses everything else with the right code and a challenge', async () => {
    const id = await tokenId(API_TOKEN);
    expect(await authenticate(`Bearer ${API_TOKEN}`, API_TOKEN)).toBe(id);
    expect(await authenticate(`bearer  ${API_TOKEN} `, API_TOKEN)).toBe(id);
    expect(id).toMatch(/^token:[0-9a-f]{16}$/);
    expect(await tokenId(LINK_SECRET)).not.toBe(id);
    const cases: [string | null, string][] = [
      [null, 'auth.required'],
      ['  ', 'auth.required'],
      [API_TOKEN, 'auth.invalid'],
      [`Bearer ${API_TOKEN}0`, 'auth.invalid'],
      [`Bearer ${API_TOKEN.slice(1)}`, 'auth.invalid'],
      [`Bearer ${API_TOKEN.toUpperCase()}`, 'auth.invalid'],
      [`Token ${API_TOKEN}`, 'auth.invalid'],
      [`Bearer ${API_TOKEN} ${API_TOKEN}`, 'auth.invalid'],
      [`Bearer ${API_TOKEN}\n`, 'auth.invalid'],
      [`Bearer ${'x'.repeat(2_000)}`, 'auth.invalid'],
    ];
    for (const [header, code] of cases) expect({ header, refused: await refusalOf(() => authenticate(header, API_TOKEN)) }).toEqual({ header, refused: { status: 401, code } });
  });

  it('sameSecret is equality, whatever the lengths', async () => {
    expect(await sameSecret(API_TOKEN, API_TOKEN)).toBe(true);
    for (const other of ['', API_TOKEN.slice(0, -1), `${API_TOKEN}a`, API_TOKEN.replace(/.$/, 'e'), 'b' + API_TOKEN.slice(1)]) expect(await sameSecret(other, API_TOKEN)).toBe(false);
  });
});

describe('examples/worker approval links', () => {
  const claims: LinkClaims = { runId: 'r-1', key: 'k-€-1', decision: 'allow', expiresAt: 1_000_000, id: newLinkId() };

  it('a link verifies to its claims until the millisecond it expires, and is link.expired from then on', async () => {
    const link = await signLink(claims, LINK_SECRET);
    expect(await verifyLink(link, LINK_SECRET, claims.expiresAt - 1)).toEqual(claims);
    expect(await refusalOf(() => verifyLink(link, LINK_SECRET, claims.expiresAt))).toEqual({ status: 410, code: 'link.expired' });
    const choose: LinkClaims = { runId: 'r-1', key: 'k', expiresAt: 5, id: newLinkId() };
    expect(await verifyLink(await signLink(choose, LINK_SECRET), LINK_SECRET, 4)).toEqual(choose);
    expect(newLinkId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newLinkId()).not.toBe(newLinkId());
  });

  it('any changed character, another key, another shape: link.invalid', async () => {
    const link = await signLink(claims, LINK_SECRET);
    const swap = (c: string) => (c === 'A' ? 'B' : 'A');
    for (let at = 0; at < link.length; at += 1) {
      if (link[at] === '.') continue;
      const changed = link.slice(0, at) + swap(link[at] as string) + link.slice(at + 1);
      expect({ at, refused: await refusalOf(() => verifyLink(changed, LINK_SECRET, 0)) }).toEqual({ at, refused: { status: 403, code: 'link.invalid' } });
    }
    const [body = '', mac = ''] = link.split('.');
    // The MAC's last character has bits no byte uses: changing them is altering the link all the same.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spareBit = (text: string) => text.slice(0, -1) + ALPHABET[ALPHABET.indexOf(text.at(-1) as string) ^ 1];
    expect(await refusalOf(() => verifyLink(`${body}.${spareBit(mac)}`, LINK_SECRET, 0))).toEqual({ status: 403, code: 'link.invalid' });
    for (const bad of ['', body, `${body}.`, `.${mac}`, `${body}.${mac}.x`, `${body}=.${mac}`, `${body}.${mac}A`, `${'A'.repeat(2_000)}.${mac}`]) {
      expect({ bad, refused: await refusalOf(() => verifyLink(bad, LINK_SECRET, 0)) }).toEqual({ bad, refused: { status: 403, code: 'link.invalid' } });
    }
    expect(await refusalOf(() => verifyLink(link, `${LINK_SECRET}x`, 0))).toEqual({ status: 403, code: 'link.invalid' });
    expect(await refusalOf(() => verifyLink(link, API_TOKEN, 0))).toEqual({ status: 403, code: 'link.invalid' });
  });
});

const entry = (fields: Record<string, unknown>) => ({ v: 1, ...fields }) as unknown as JournalEntry;
const START = entry({ type: 'run:start', workflow: 'task', args: 't' });
const ask = (key: string, deadlineAt?: string) => entry({ type: 'approval', key, agent: 'a', turn: 1, index: 0, toolName: 'notes_save_note', callId: 'c', input: { title: 't' }, audit: {}, ...(deadlineAt === undefined ? {} : { deadlineAt }) });
const resolution = (key: string, decision: string, by: string, decider?: string) => entry({ type: 'resolution', key, decision, by, at: '2026-12-01T00:00:00.000Z', ...(decider === undefined ? {} : { decider }) });
const END = entry({ type: 'run:end', value: 'done' });

describe('examples/worker approvals, read from the journal', () => {
  it('decidable: unknown 404, resolved or ended 409 (the first resolution named), open returns the ask', () => {
    const entries = [START, ask('k1'), resolution('k1', 'deny', 'timeout'), resolution('k1', 'allow', 'operator'), ask('k2')];
    expect(refusal(() => decidable('r', 'nope', approvalState(entries, 'nope')))).toMatchObject({ status: 404, code: 'approval.not_found' });
    expect(refusal(() => decidable('r', 'k1', approvalState(entries, 'k1')))).toMatchObject({ status: 409, code: 'approval.closed', message: expect.stringContaining('already resolved (deny, by timeout)') });
    expect(decidable('r', 'k2', approvalState(entries, 'k2'))).toMatchObject({ key: 'k2', toolName: 'notes_save_note' });
    expect(refusal(() => decidable('r', 'k2', approvalState([...entries, END], 'k2')))).toMatchObject({ status: 409, code: 'approval.closed', message: expect.stringContaining('the run has ended without it') });
  });

  it('a link is used once a resolution names it, whichever key it closed', () => {
    const id = newLinkId();
    expect(() => checkLinkUnused([START, ask('k1'), resolution('k1', 'allow', 'operator', 'link:other')], id)).not.toThrow();
    expect(refusal(() => checkLinkUnused([START, ask('k1'), resolution('k1', 'deny', 'operator', `link:${id}`)], id))).toMatchObject({ status: 409, code: 'link.used', message: expect.stringContaining('(deny,') });
  });

  it('a new link expires at the deadline at the latest, and is refused for a closed or passed approval', () => {
    const now = 1_000_000;
    const deadline = new Date(now + 60_000).toISOString();
    const state = approvalState([START, ask('k', deadline)], 'k');
    expect(claimsForLink('r', state, { key: 'k' }, now, 'id', 5_000)).toEqual({ runId: 'r', key: 'k', expiresAt: now + 5_000, id: 'id' });
    expect(claimsForLink('r', state, { key: 'k', expiresInMs: 1_000, decision: 'deny' }, now, 'id', 5_000)).toEqual({ runId: 'r', key: 'k', decision: 'deny', expiresAt: now + 1_000, id: 'id' });
    expect(claimsForLink('r', state, { key: 'k', expiresInMs: 120_000 }, now, 'id', 5_000).expiresAt).toBe(now + 60_000);
    expect(claimsForLink('r', approvalState([START, ask('k')], 'k'), { key: 'k' }, now, 'id', 5_000).expiresAt).toBe(now + 5_000);
    expect(refusal(() => claimsForLink('r', state, { key: 'k' }, now + 60_000, 'id', 5_000))).toMatchObject({ status: 409, code: 'approval.closed', message: expect.stringContaining('deadline has passed') });
    expect(refusal(() => claimsForLink('r', approvalState([START, ask('k'), END], 'k'), { key: 'k' }, now, 'id', 5_000))).toMatchObject({ code: 'approval.closed' });
  });

  it("a link's view shows the call and what the link may decide, unless the link was used", () => {
    const link: LinkClaims = { runId: 'r', key: 'k', decision: 'allow', expiresAt: 0, id: newLinkId() };
    expect(linkView([START, ask('k', '2026-12-02T00:00:00.000Z')], link)).toEqual({
      runId: 'r', key: 'k', toolName: 'notes_save_note', input: { title: 't' }, deadlineAt: '2026-12-02T00:00:00.000Z', decision: 'allow', expiresAt: '1970-01-01T00:00:00.000Z',
    });
    expect(refusal(() => linkView([START, ask('k'), resolution('k', 'allow', 'operator', `link:${link.id}`)], link))).toMatchObject({ code: 'link.used' });
  });

  it('run views list open asks in order, none once the run ended, and carry the value and error', () => {
    const record = { runId: 'r', status: 'suspended' } as const;
    const entries = [START, ask('k1', 'd1'), ask('k2'), resolution('k1', 'allow', 'operator')];
    expect(viewOf(record, entries)).toEqual({ runId: 'r', status: 'suspended', pending: [{ key: 'k2', toolName: 'notes_save_note', input: { title: 't' } }] });
    expect(viewOf(record, [START, ask('k1', 'd1')]).pending).toEqual([{ key: 'k1', toolName: 'notes_save_note', input: { title: 't' }, deadlineAt: 'd1' }]);
    expect(viewOf({ runId: 'r', status: 'completed' }, [...entries, END])).toEqual({ runId: 'r', status: 'completed', pending: [], value: 'done' });
    const failed = { runId: 'r', status: 'failed', error: { code: 'model.failed', message: 'm' } } as const;
    expect(viewOf(failed, entries)).toMatchObject({ status: 'failed', error: failed.error });
  });
});

describe('examples/worker redaction', () => {
  const secret = 'Sk-Live_9f8e7d6c5b4a3/21+0';
  const quoted = 'quote"and\\backslash-9f8e7d6c';
  const forms = secretForms({ API_TOKEN: secret, APPROVAL_LINK_SECRET: quoted, MCP_TOKEN: 'short', OPENAI_API_KEY: 'sk-other-key-1234' });
  const base64 = (text: string) => btoa(text);
  /** What is left of `text` once the frame and the markers are taken out: the edges of an echo at most. */
  const leftover = (text: string) => text.replace(/^before /, '').replace(/ after$/, '').replaceAll('[redacted]', '');

  it('finds each secret whole, in any letter case, JSON-escaped once and twice, HTML-escaped, URL-encoded, and in base64 at every offset', () => {
    const echoes = [
      secret,
      secret.toUpperCase(),
      JSON.stringify(secret),
      JSON.stringify(JSON.stringify(secret)),
      encodeURIComponent(secret),
      base64(secret),
      base64(`x${secret}`),
      base64(`xy${secret}`),
      base64(`Bearer ${secret}`),
      base64(secret).replace(/\+/g, '-').replace(/\//g, '_'),
      'sk-other-key-1234',
      quoted,
      JSON.stringify(quoted),
      JSON.stringify(JSON.stringify(quoted)),
      encodeURIComponent(quoted),
      base64(`:${quoted}`),
      quoted.replace(/"/g, '&#34;'),
      JSON.stringify(quoted).replace(/"/g, '&#34;'),
    ];
    for (const echo of echoes) {
      const text = redactText(`before ${echo} after`, forms);
      expect({ echo, text }).toEqual({ echo, text: expect.stringContaining('[redacted]') });
      // The edges of an encoded echo (a quote, a base64 group that mixes in its neighbours) may stay; nothing more.
      expect({ echo, left: leftover(text).length <= 12 }).toEqual({ echo, left: true });
    }
    // Values too short to be told from text are left alone, and so is text with no secret.
    expect(redactText('a short word', forms)).toBe('a short word');
    expect(secretForms({})).toEqual([]);
    expect(redactText(`${secret}${secret} and ${secret}`, forms)).toBe('[redacted] and [redacted]');
  });

  it('responses: bodies scrubbed and still JSON; an answer that would break is withheld, typed', async () => {
    const answer = await redactResponse(Response.json({ value: `key ${secret}`, n: 1 }, { status: 201, headers: { location: '/runs/x' } }), forms);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('location')).toBe('/runs/x');
    expect(await answer.json()).toEqual({ value: 'key [redacted]', n: 1 });
    // A secret that spans JSON structure (here the whole body) cannot be cut out cleanly.
    const spanning = secretForms({ API_TOKEN: '{"value":"a"}' });
    const broken = await redactResponse(new Response('{"value":"a"}', { headers: { 'content-type': 'application/json' } }), spanning);
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: { code: 'worker.redaction_failed' } });
    const clean = Response.json({ ok: true });
    expect(await redactResponse(clean, forms)).toBeInstanceOf(Response);
  });
});
