/**
 * Unit tests for src/core/mcp/oauth-fetch.ts with a fetch of the test's own: the OAuth flow's
 * requests (everything not sent to the MCP endpoint) go with `redirect: 'manual'` and the
 * flow's signal, a redirect to another origin is refused naming the origin only, close()
 * aborts what is in flight and refuses what comes after; the MCP endpoint's last refusal is
 * kept, and a request on its final attempt has a 401 or 403 refused at once, for its reason.
 */
import { describe, expect, it } from 'vitest';
import { HttpAuthError } from '../../src/core/mcp/challenge.js';
import type { FetchLike } from '../../src/core/mcp/config-types.js';
import { FlowClosedError, FlowFetch, OAuthRedirectError } from '../../src/core/mcp/oauth-fetch.js';

const ENDPOINT = 'https://mcp.example/v1/mcp';
const TOKEN = 'https://auth.example/oauth/token';

/** A fetch answering `answer(url)`, recording each request's URL and init. */
function recording(answer: (url: string) => Response = () => new Response('{}')) {
  const sent: { url: string; init: RequestInit | undefined }[] = [];
  const fetch: FetchLike = (input, init) => {
    sent.push({ url: String(input), init });
    return Promise.resolve(answer(String(input)));
  };
  return { fetch, sent };
}

const redirect = (status: number, location?: string) => () => new Response(null, { status, headers: location === undefined ? {} : { location } });

describe('flow requests', () => {
  it("go with redirect: 'manual' and the flow's signal; requests to the MCP endpoint go as they are", async () => {
    const { fetch, sent } = recording();
    const flow = new FlowFetch(fetch, new URL(ENDPOINT));
    await flow.fetch(TOKEN, { method: 'POST', body: 'grant_type=x' });
    await flow.fetch(ENDPOINT, { method: 'POST', body: '{}' });
    await flow.fetch('https://mcp.example/v1/other', { method: 'GET' });
    expect(sent.map(({ init }) => init?.redirect)).toEqual(['manual', undefined, 'manual']);
    expect(sent[0]!.init).toMatchObject({ method: 'POST', body: 'grant_type=x' });
    expect(sent[0]!.init?.signal).toBeInstanceOf(AbortSignal);
    expect(sent[1]!.init?.signal).toBeUndefined();
  });

  it("the caller's own signal still aborts a flow request, beside close()", async () => {
    const { fetch, sent } = recording();
    const flow = new FlowFetch(fetch, new URL(ENDPOINT));
    const caller = new AbortController();
    await flow.fetch(TOKEN, { signal: caller.signal });
    await flow.fetch(TOKEN, { signal: null });
    expect(sent[0]!.init?.signal?.aborted).toBe(false);
    caller.abort();
    expect([sent[0]!.init?.signal?.aborted, sent[1]!.init?.signal?.aborted]).toEqual([true, false]);
    flow.close();
    expect(sent[1]!.init?.signal?.aborted).toBe(true);
  });

  it('close() refuses every flow request after it, and none reaches the fetch', async () => {
    const { fetch, sent } = recording();
    const flow = new FlowFetch(fetch, new URL(ENDPOINT));
    flow.close();
    await expect(flow.fetch(TOKEN)).rejects.toBeInstanceOf(FlowClosedError);
    await expect(flow.fetch(TOKEN)).rejects.toThrow('the source was closed, so the OAuth request was not sent');
    expect(sent).toEqual([]);
    expect((await flow.fetch(ENDPOINT)).status).toBe(200);
  });

  it.each([301, 302, 303, 307, 308])('a %i to another origin is refused, naming the origin and never the path', async (status) => {
    const flow = new FlowFetch(recording(redirect(status, 'https://evil.example/steal?code=s3cret')).fetch, new URL(ENDPOINT));
    const refused = flow.fetch(TOKEN);
    await expect(refused).rejects.toBeInstanceOf(OAuthRedirectError);
    await expect(refused).rejects.toThrow(
      'the OAuth request to https://auth.example/oauth/token was redirected to another origin, https://evil.example; OAuth requests carry credentials (a client secret, a code verifier, tokens), so it was not followed',
    );
  });

  it('a protocol-relative location is read against the request: another origin, refused', async () => {
    await expect(new FlowFetch(recording(redirect(307, '//evil.example/steal')).fetch, new URL(ENDPOINT)).fetch(TOKEN)).rejects.toThrow('redirected to another origin, https://evil.example;');
  });

  it('a redirect within the origin, a relative one, one with no or a bad location, and any non-3xx are handed back', async () => {
    for (const answer of [redirect(307, 'https://auth.example/other'), redirect(302, '/elsewhere'), redirect(302), redirect(302, 'http://[bad'), redirect(300, '/x'), redirect(399, '/x'), redirect(400, 'https://evil.example/'), redirect(299, 'https://evil.example/')]) {
      const response = await new FlowFetch(recording(answer).fetch, new URL(ENDPOINT)).fetch(TOKEN);
      expect(response).toBeInstanceOf(Response);
    }
    await expect(new FlowFetch(recording(redirect(300, 'https://evil.example/')).fetch, new URL(ENDPOINT)).fetch(TOKEN)).rejects.toBeInstanceOf(OAuthRedirectError);
    await expect(new FlowFetch(recording(redirect(399, 'https://evil.example/')).fetch, new URL(ENDPOINT)).fetch(TOKEN)).rejects.toBeInstanceOf(OAuthRedirectError);
  });

  it('an opaque redirect (a browser hides where it points) is refused too', async () => {
    const opaque = Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' });
    await expect(new FlowFetch(recording(() => opaque).fetch, new URL(ENDPOINT)).fetch(TOKEN)).rejects.toThrow(
      'the OAuth request to https://auth.example/oauth/token was redirected where this runtime does not say; OAuth requests carry credentials',
    );
  });
});

describe('the MCP endpoint', () => {
  const refusing = (status: number, challenge?: string) =>
    recording(() => new Response('denied', { status, headers: challenge === undefined ? {} : { 'www-authenticate': challenge } }));

  it('keeps the last 401 or 403 with its challenge, and hands it back to the SDK', async () => {
    const flow = new FlowFetch(refusing(403, 'Bearer error="insufficient_scope"').fetch, new URL(ENDPOINT));
    expect(flow.lastRefusal).toBeUndefined();
    expect((await flow.fetch(ENDPOINT, { body: '{}' })).status).toBe(403);
    expect(flow.lastRefusal).toEqual({ status: 403, challenge: 'Bearer error="insufficient_scope"' });
    const unauthorized = new FlowFetch(refusing(401).fetch, new URL(ENDPOINT));
    await unauthorized.fetch(ENDPOINT);
    expect(unauthorized.lastRefusal).toEqual({ status: 401, challenge: null });
    const fine = new FlowFetch(refusing(500).fetch, new URL(ENDPOINT));
    await fine.fetch(ENDPOINT);
    expect(fine.lastRefusal).toBeUndefined();
  });

  it('on its final attempt a request whose answer is a 401 or 403 is refused at once, for its reason, and only then', async () => {
    const flow = new FlowFetch(refusing(403, 'Bearer scope="admin"').fetch, new URL(ENDPOINT));
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list' };
    const body = JSON.stringify(message);
    const during = flow.finalAttempt(message, 'the new token still lacks the scope', () => flow.fetch(ENDPOINT, { body }));
    await expect(during).rejects.toBeInstanceOf(HttpAuthError);
    await expect(during).rejects.toMatchObject({
      status: 403,
      message: 'the server answered 403 Forbidden, challenge: Bearer scope="admin"; the new token still lacks the scope, so the flow was not run again',
    });
    expect((await flow.fetch(ENDPOINT, { body })).status).toBe(403);
    const other = flow.finalAttempt(message, 'why', () => flow.fetch(ENDPOINT, { body: '{"other":1}' }));
    expect((await other).status).toBe(403);
  });

  it('finalAttempt hands back what its send gave', async () => {
    const flow = new FlowFetch(recording().fetch, new URL(ENDPOINT));
    expect(await flow.finalAttempt({ jsonrpc: '2.0', id: 2, method: 'ping' }, 'why', () => Promise.resolve('sent'))).toBe('sent');
  });

  it('the endpoint is matched by origin and path: a query or another path is a flow request', async () => {
    const { fetch, sent } = recording();
    const flow = new FlowFetch(fetch, new URL(ENDPOINT));
    await flow.fetch(`${ENDPOINT}?x=1`);
    await flow.fetch('http://mcp.example/v1/mcp');
    expect(sent.map(({ init }) => init?.redirect)).toEqual([undefined, 'manual']);
  });
});
