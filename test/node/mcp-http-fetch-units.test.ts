/**
 * Unit tests for src/core/mcp/http-fetch.ts with a fetch of the test's own: the header hook
 * awaited before each send and its values remembered by the redactor; hook headers only to the
 * MCP server's origin and never over the SDK's own Authorization; every way a hook can fail
 * named without its value; and the 401/403 rules: which refusals become an HttpAuthError naming
 * the challenge, which the SDK's OAuth flow keeps, a step-up's scope widened in the challenge,
 * and the flow's own resend refused for good.
 */
import { describe, expect, it } from 'vitest';
import { HttpAuthError } from '../../src/core/mcp/challenge.js';
import type { FetchLike, HeaderHook, HeaderRecord } from '../../src/core/mcp/config-types.js';
import { createHeaderFetch, HeaderHookError, type Endpoint } from '../../src/core/mcp/http-fetch.js';
import { Redactor } from '../../src/core/secrets/redactor.js';

const MCP = 'https://mcp.example/v1/mcp';

/** A fetch answering `answer` for every request, recording each one's URL and headers. */
function recording(answer: () => Response = () => new Response('{}', { headers: { 'content-type': 'application/json' } })) {
  const sent: { url: string; headers: Headers }[] = [];
  const fetch: FetchLike = (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers) });
    return Promise.resolve(answer());
  };
  return { fetch, sent };
}

function make(headers: HeaderRecord | HeaderHook | undefined, fetch: FetchLike, endpoint: Partial<Endpoint> = {}) {
  const redactor = new Redactor();
  const wrapped = createHeaderFetch(headers, fetch, () => {}, redactor, { url: new URL(MCP), authorizes: false, ...endpoint });
  return { wrapped, redactor };
}

describe('the header hook', () => {
  it('is awaited before each send, so a rotated credential goes out on the next request', async () => {
    let token = 'token-one-abcdef';
    const { fetch, sent } = recording();
    const { wrapped, redactor } = make(() => Promise.resolve({ authorization: `Bearer ${token}` }), fetch);
    await wrapped(MCP, { method: 'POST' });
    token = 'token-two-ghijkl';
    await wrapped(MCP, { method: 'POST', headers: { accept: 'application/json' } });
    expect(sent.map((request) => request.headers.get('authorization'))).toEqual(['Bearer token-one-abcdef', 'Bearer token-two-ghijkl']);
    expect(sent[1]!.headers.get('accept')).toBe('application/json');
    expect(redactor.text('echo: Bearer token-two-ghijkl and token-one-abcdef')).not.toMatch(/token-(one|two)/);
  });

  it('a record or a Headers object works as well as a function', async () => {
    const { fetch, sent } = recording();
    await make({ 'x-key': 'v1' }, fetch).wrapped(MCP);
    await make(() => new Headers({ 'x-key': 'v2' }), fetch).wrapped(MCP);
    expect(sent.map((request) => request.headers.get('x-key'))).toEqual(['v1', 'v2']);
  });

  it("goes only to the MCP server's origin, and never over the SDK's own Authorization", async () => {
    const { fetch, sent } = recording();
    const { wrapped } = make({ authorization: 'Bearer from-hook', 'x-tenant': 't1' }, fetch);
    await wrapped('https://auth.example/token', { headers: { authorization: 'Basic client' } });
    await wrapped('https://mcp.example/other/path', { headers: { authorization: 'Bearer from-provider' } });
    await make({ Authorization: 'Bearer from-hook' }, fetch).wrapped(MCP, { headers: { authorization: 'Bearer from-provider' } });
    expect(sent.map((request) => [request.headers.get('authorization'), request.headers.get('x-tenant')])).toEqual([
      ['Basic client', null],
      ['Bearer from-provider', 't1'],
      ['Bearer from-provider', null],
    ]);
  });

  it('without a hook, requests go as they are', async () => {
    const { fetch, sent } = recording();
    await make(undefined, fetch).wrapped(MCP, { headers: { a: 'b' } });
    expect(sent[0]!.headers.get('a')).toBe('b');
  });

  it.each([
    ['a hook that throws', () => { throw new TypeError('s3cret'); }, 'the http.headers hook failed (TypeError); nothing was sent'],
    ['a hook that rejects', () => Promise.reject(new Error('s3cret')), 'the http.headers hook failed (Error); nothing was sent'],
    ['a hook returning null', () => null, 'the http.headers hook must return a record of header names to string values, or a Headers object'],
    ['a hook returning a list', () => [['a', 'b']], 'the http.headers hook must return a record of header names to string values, or a Headers object'],
    ['a hook returning a string', () => 's3cret', 'the http.headers hook must return a record of header names to string values, or a Headers object'],
    ['a value that is a number', () => ({ 'x-n': 5 }), 'header "x-n" from http.headers is number, not a string; nothing was sent'],
    ['a value that is undefined', () => ({ 'x-u': undefined }), 'header "x-u" from http.headers is undefined, not a string; nothing was sent'],
    ['a value that is null', () => ({ 'x-u': null }), 'header "x-u" from http.headers is null, not a string; nothing was sent'],
    ['a value that is a list', () => ({ 'x-u': ['s3cret'] }), 'header "x-u" from http.headers is an array, not a string; nothing was sent'],
    ['a getter that throws', () => ({ get 'x-g'(): string { throw new RangeError('s3cret'); } }), 'reading the headers from http.headers failed (RangeError); nothing was sent'],
    ['a name that is no token', () => ({ 'bad name': 'v' }), 'header "bad name" from http.headers has an invalid name or value; nothing was sent'],
    ['a value past Latin-1', () => ({ 'x-v': 's3cret€' }), 'header "x-v" from http.headers has an invalid name or value; nothing was sent'],
    ['a value with a line break', () => ({ 'x-v': 'a\r\nb' }), 'header "x-v" from http.headers has an invalid name or value; nothing was sent'],
    ['a bad name of 61 characters', () => ({ [`${'n'.repeat(60)} `]: 'v' }), `header "${'n'.repeat(60)}…" from http.headers has an invalid name or value; nothing was sent`],
    ['a bad name of 60 characters', () => ({ [`${'n'.repeat(59)} `]: 'v' }), `header "${'n'.repeat(59)} " from http.headers has an invalid name or value; nothing was sent`],
  ])('%s is a HeaderHookError naming no value, and nothing is sent', async (_name, hook, message) => {
    const { fetch, sent } = recording();
    const failed = make(hook as HeaderHook, fetch).wrapped(MCP);
    await expect(failed).rejects.toBeInstanceOf(HeaderHookError);
    await expect(failed).rejects.toThrow(message);
    await expect(failed).rejects.not.toThrow(/s3cret/);
    expect(sent).toEqual([]);
  });

  it('a Latin-1 value is a byte string and goes out', async () => {
    const { fetch, sent } = recording();
    await make({ 'x-v': 'caf\u00e9\u00ff' }, fetch).wrapped(MCP);
    expect(sent).toHaveLength(1);
  });
});

describe('401 and 403 from the MCP endpoint', () => {
  const refusal = (status: number, challenge?: string, body = 'no') => () =>
    new Response(body, { status, statusText: 'Refused', headers: challenge === undefined ? {} : { 'www-authenticate': challenge } });

  it('without a provider, a 401 or 403 names its challenge and the body', async () => {
    const { fetch } = recording(refusal(401, 'Bearer realm="mcp"', 'go away'));
    const failed = make(undefined, fetch).wrapped(MCP);
    await expect(failed).rejects.toBeInstanceOf(HttpAuthError);
    await expect(failed).rejects.toMatchObject({
      status: 401,
      message: 'the server answered 401 Unauthorized, challenge: Bearer realm="mcp" (the server said: go away); configure http.authProvider (OAuth) or send credentials with http.headers',
    });
    await expect(make(undefined, recording(refusal(403)).fetch).wrapped(MCP)).rejects.toMatchObject({ status: 403 });
  });

  it('other statuses, other origins and other paths are handed back as they came', async () => {
    for (const [status, url] of [[200, MCP], [404, MCP], [401, 'https://auth.example/v1/mcp'], [401, 'https://mcp.example/v1/other']] as const) {
      const answer = new Response('x', { status });
      const { wrapped } = make(undefined, () => Promise.resolve(answer));
      expect((await wrapped(url)).status).toBe(status);
    }
  });

  it('without a provider there is no step-up and no resend: the hooks a provider brings are not asked', async () => {
    const asked: string[] = [];
    const endpoint = { authorizes: false, onStepUp: () => (asked.push('stepUp'), 'x'), onUnauthorized: () => (asked.push('unauthorized'), true) };
    await expect(make(undefined, recording(refusal(403, 'Bearer error="insufficient_scope"')).fetch, endpoint).wrapped(MCP)).rejects.toThrow(/configure http.authProvider/);
    await expect(make(undefined, recording(refusal(401, 'Bearer')).fetch, endpoint).wrapped(MCP)).rejects.toThrow(/configure http.authProvider/);
    expect(asked).toEqual([]);
  });

  it('with a provider, the SDK keeps a 401 and a 403 insufficient_scope; any other 403 is refused', async () => {
    const provider = { authorizes: true };
    expect((await make(undefined, recording(refusal(401, 'Bearer')).fetch, provider).wrapped(MCP)).status).toBe(401);
    expect((await make(undefined, recording(refusal(403, 'Bearer error="insufficient_scope"')).fetch, provider).wrapped(MCP)).status).toBe(403);
    await expect(make(undefined, recording(refusal(403, 'Bearer error="invalid_token"')).fetch, provider).wrapped(MCP)).rejects.toThrow(
      /^the server answered 403 Forbidden, challenge: Bearer error="invalid_token" \(the server said: no\); the http.authProvider flow does not apply to this refusal$/,
    );
  });

  it("a 401 to the flow's own resend is refused for good, saying so; the SDK is told of each 401 with its body", async () => {
    const told: unknown[][] = [];
    const endpoint = { authorizes: true, onUnauthorized: (challenge: string | null, body: unknown) => (told.push([challenge, body]), body === 'resend') };
    const { fetch } = recording(refusal(401, 'Bearer error="invalid_token"', 'wrong audience'));
    const { wrapped } = make(undefined, fetch, endpoint);
    expect((await wrapped(MCP, { body: 'first' })).status).toBe(401);
    await expect(wrapped(MCP, { body: 'resend' })).rejects.toThrow(
      'the server answered 401 Unauthorized, challenge: Bearer error="invalid_token" (the server said: wrong audience); it refused the token the http.authProvider flow had just obtained, so the flow was not run again',
    );
    expect(told).toEqual([['Bearer error="invalid_token"', 'first'], ['Bearer error="invalid_token"', 'resend']]);
  });

  it('a step-up shows the SDK the widened scope in the challenge, its other parameters kept', async () => {
    const asked: unknown[] = [];
    const endpoint = { authorizes: true, onStepUp: (scope: string | undefined) => (asked.push(scope), 'read write "x\\') };
    const challenge = 'Bearer error="insufficient_scope", scope="write", resource_metadata="https://mcp.example/rm"';
    const { fetch } = recording(refusal(403, challenge));
    const answer = await make(undefined, fetch, endpoint).wrapped(MCP);
    expect([answer.status, answer.statusText, answer.headers.get('www-authenticate'), asked]).toEqual([
      403,
      'Refused',
      'Bearer error="insufficient_scope", scope="read write x", resource_metadata="https://mcp.example/rm"',
      ['write'],
    ]);
    const unwidened = await make(undefined, recording(refusal(403, challenge)).fetch, { authorizes: true, onStepUp: () => undefined }).wrapped(MCP);
    expect(unwidened.headers.get('www-authenticate')).toBe(challenge);
  });
});
