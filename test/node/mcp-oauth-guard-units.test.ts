/**
 * Unit tests for guardProvider (src/core/mcp/oauth.ts), the proxy the SDK's OAuth flow sees
 * in place of the host's provider: every secret it saves or hands back is remembered by the
 * source's redactor; a failing method is named without its error's words; after close() no
 * method of the host's provider runs; a step-up hides the refresh token until new tokens are
 * saved and, on the 2026-07-28 revision, asks for the scopes granted before as well. And
 * ResendWatch, which tells the flow's own resends apart by their body.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { AuthProviderError, guardProvider, ResendWatch } from '../../src/core/mcp/oauth.js';
import { Redactor } from '../../src/core/secrets/redactor.js';

/** A host provider recording its calls; `tokens()` answers what was saved last. */
function hostProvider(overrides: Record<string, unknown> = {}) {
  const calls: string[] = [];
  let saved: unknown = { access_token: 'access-token-0000', refresh_token: 'refresh-token-0000', token_type: 'bearer' };
  const host = {
    redirectUrl: 'http://localhost:9/cb',
    clientMetadata: { client_name: 'c', redirect_uris: ['http://localhost:9/cb'] },
    clientInformation: () => (calls.push('clientInformation'), { client_id: 'id', client_secret: 'client-secret-1111' }),
    tokens: () => (calls.push('tokens'), saved),
    saveTokens: (tokens: unknown) => {
      calls.push('saveTokens');
      saved = tokens;
    },
    redirectToAuthorization: () => void calls.push('redirectToAuthorization'),
    saveCodeVerifier: () => void calls.push('saveCodeVerifier'),
    codeVerifier: () => (calls.push('codeVerifier'), 'verifier'),
    ...overrides,
  } as unknown as OAuthClientProvider;
  return { host, calls };
}

describe('guardProvider', () => {
  it('hands the host provider through, its methods made async and its other members as they are', async () => {
    const { host, calls } = hostProvider();
    const { provider } = guardProvider(host, new Redactor());
    expect(provider.redirectUrl).toBe('http://localhost:9/cb');
    expect(provider.clientMetadata).toEqual({ client_name: 'c', redirect_uris: ['http://localhost:9/cb'] });
    expect(await provider.codeVerifier()).toBe('verifier');
    expect(calls).toEqual(['codeVerifier']);
  });

  it('a symbol-keyed member is handed through untouched', () => {
    const tag = Symbol('tag');
    const method = () => 'mine';
    const { provider } = guardProvider(hostProvider({ [tag]: method }).host, new Redactor());
    expect((provider as unknown as Record<symbol, unknown>)[tag]).toBe(method);
  });

  it('every token and client secret it saves or hands back is remembered by the redactor', async () => {
    const { host } = hostProvider();
    const redactor = new Redactor();
    const { provider } = guardProvider(host, redactor);
    await provider.tokens();
    await provider.clientInformation();
    await provider.saveTokens({ access_token: 'access-token-2222', refresh_token: 'refresh-token-2222', token_type: 'bearer' });
    const echoed = 'access-token-0000 refresh-token-0000 client-secret-1111 access-token-2222 refresh-token-2222';
    expect(redactor.text(echoed)).not.toMatch(/token-0000|secret-1111|token-2222/);
    expect(redactor.text('nothing secret here at all')).toBe('nothing secret here at all');
  });

  it('empty or non-string secrets are not remembered', async () => {
    const { host } = hostProvider({ clientInformation: () => ({ client_id: 'id', client_secret: '' }), tokens: () => ({ access_token: 42 }) });
    const redactor = new Redactor();
    const { provider } = guardProvider(host, redactor);
    await provider.clientInformation();
    await provider.tokens();
    expect(redactor.active).toBe(false);
  });

  it("a failing method is an AuthProviderError naming the method and the error's class, never its words", async () => {
    const { host } = hostProvider({ tokens: () => { throw new TypeError('s3cret in the message'); }, codeVerifier: () => Promise.reject('plain') });
    const { provider } = guardProvider(host, new Redactor());
    await expect(provider.tokens()).rejects.toThrow(new AuthProviderError("the http.authProvider's tokens() failed (TypeError)"));
    await expect(provider.codeVerifier()).rejects.toThrow("the http.authProvider's codeVerifier() failed (string)");
  });

  it('after close() no method of the host provider runs', async () => {
    const { host, calls } = hostProvider();
    const guarded = guardProvider(host, new Redactor());
    guarded.close();
    await expect(guarded.provider.saveTokens({ access_token: 'late-token-3333', token_type: 'bearer' })).rejects.toThrow(
      new AuthProviderError("the source was closed, so the http.authProvider's saveTokens() was not called"),
    );
    expect(calls).toEqual([]);
  });

  it('counts the authorization redirects it was asked for', async () => {
    const guarded = guardProvider(hostProvider().host, new Redactor());
    expect(guarded.redirects()).toBe(0);
    await guarded.provider.redirectToAuthorization(new URL('https://as.example/authorize'));
    await guarded.provider.redirectToAuthorization(new URL('https://as.example/authorize'));
    expect(guarded.redirects()).toBe(2);
  });

  it('a step-up hides the refresh token until new tokens are saved or a redirect is made', async () => {
    const guarded = guardProvider(hostProvider().host, new Redactor());
    expect(await guarded.provider.tokens()).toHaveProperty('refresh_token');
    expect(guarded.stepUp('admin')).toBeUndefined();
    expect(await guarded.provider.tokens()).toEqual({ access_token: 'access-token-0000', token_type: 'bearer' });
    await guarded.provider.saveTokens({ access_token: 'a-4444444444', refresh_token: 'r-4444444444', token_type: 'bearer' });
    expect(await guarded.provider.tokens()).toHaveProperty('refresh_token', 'r-4444444444');
    guarded.stepUp();
    await guarded.provider.redirectToAuthorization(new URL('https://as.example/authorize'));
    expect(await guarded.provider.tokens()).toHaveProperty('refresh_token');
  });

  it('a step-up leaves tokens that are no object as they are', async () => {
    const guarded = guardProvider(hostProvider({ tokens: () => undefined }).host, new Redactor());
    guarded.stepUp();
    expect(await guarded.provider.tokens()).toBeUndefined();
  });

  it('on the 2026-07-28 revision: application_type in the metadata, and a step-up asks for the scopes granted before too', async () => {
    const guarded = guardProvider(hostProvider().host, new Redactor(), true);
    expect(guarded.provider.clientMetadata).toEqual({ client_name: 'c', redirect_uris: ['http://localhost:9/cb'], application_type: 'native' });
    await guarded.provider.redirectToAuthorization(new URL('https://as.example/authorize?scope=profile'));
    await guarded.provider.saveTokens({ access_token: 'a-5555555555', token_type: 'bearer', scope: 'read list' });
    expect(guarded.stepUp('write')).toBe('profile read list write');
    const legacy = guardProvider(hostProvider().host, new Redactor());
    expect(legacy.provider.clientMetadata).not.toHaveProperty('application_type');
    await legacy.provider.saveTokens({ access_token: 'a-6666666666', token_type: 'bearer', scope: 'read' });
    expect(legacy.stepUp('write')).toBeUndefined();
  });
});

describe('ResendWatch', () => {
  const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list' };

  it('a 401 to a request is final only while that very request is being resent; the last challenge is kept', async () => {
    const watch = new ResendWatch();
    const body = JSON.stringify(message);
    expect([watch.onUnauthorized('Bearer a', body), watch.lastChallenge]).toEqual([false, 'Bearer a']);
    const during = await watch.resend(message, () => Promise.resolve([watch.onUnauthorized('Bearer b', body), watch.onUnauthorized(null, '{"other":1}'), watch.onUnauthorized(null, undefined)]));
    expect(during).toEqual([true, false, false]);
    expect([watch.onUnauthorized('Bearer c', body), watch.lastChallenge]).toEqual([false, 'Bearer c']);
  });

  it('a resend that fails is no longer watched', async () => {
    const watch = new ResendWatch();
    await expect(watch.resend(message, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(watch.onUnauthorized(null, JSON.stringify(message))).toBe(false);
  });
});
