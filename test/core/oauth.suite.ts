/**
 * `http.authProvider` against an in-process authorization server and protected MCP server
 * (fixtures/oauth-*.ts), in every runtime: each case ends in a working call or a typed error.
 */
import { DEFAULT_METADATA_PATH, MCP_URL, createProtectedWorld, type ProtectedWorld } from '../fixtures/oauth-resource.js';
import { TestProvider, type TestProviderOptions } from '../fixtures/oauth-provider.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, expectSourceError, pick, run, sleep, until } from './helpers.js';

export function oauthSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;
  const connect = (world: ProtectedWorld, authProvider?: TestProvider, headers: Record<string, string> = {}, connectMs?: number) =>
    mcp({
      transport: 'streamable-http',
      url: MCP_URL,
      http: { fetch: world.fetch, headers, ...(authProvider && { authProvider }) },
      ...(connectMs === undefined ? {} : { timeouts: { connectMs } }),
    });
  /** A confidential machine client, pre-registered: the SDK itself asks the token endpoint. */
  const machine = (world: ProtectedWorld) => {
    world.as.register('machine', 'machine-secret-0123456789');
    return provider(world, { clientCredentials: true, client: { client_id: 'machine', client_secret: 'machine-secret-0123456789' } });
  };
  const provider = (world: ProtectedWorld, options: Partial<TestProviderOptions> = {}) =>
    new TestProvider({ serverUrl: MCP_URL, fetch: world.fetch, ...options });
  const output = (result: unknown) => JSON.stringify(result);

  h.describe('streamable-http with http.authProvider (OAuth)', () => {
    h.it('refuses a provider without the methods the SDK calls, naming them', async () => {
      const message = await expectConfigError(
        h,
        () => mcp({ transport: 'streamable-http', url: MCP_URL, http: { authProvider: { tokens: () => undefined } as never } }),
        'config.invalid_value',
      );
      h.expect(message).toContain('saveTokens()');
    });

    h.it('a 401 without a provider fails typed, naming the challenge', async () => {
      const world = createProtectedWorld();
      await using source = connect(world);
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('401 Unauthorized, challenge: Bearer realm="mcp"');
      h.expect(message).toContain('resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp", scope="read"');
    });

    h.it('discovers (through the challenge), registers dynamically, authorizes with PKCE, resends, and calls', async () => {
      // The metadata is only where the challenge's resource_metadata says: not at the default
      // well-known path, so a client ignoring the challenge finds no authorization server.
      const world = createProtectedWorld({ metadataPath: '/oauth/resource-metadata' });
      const host = provider(world);
      await using source = connect(world, host);
      const result = await run(h, pick(await source.tools(), 'whoami'), {});
      h.expect(output(result)).toContain('a reader');
      h.expect(world.paths).toContain('GET /oauth/resource-metadata');
      h.expect(world.paths).not.toContain(`GET ${DEFAULT_METADATA_PATH}`);
      h.expect(world.as.log.slice(0, 2)).toEqual(['register', 'authorization_code']);
      h.expect(host.authorizedScopes).toEqual(['read']);
      h.expect(world.seen[0]).toBeNull();
      h.expect(world.seen.at(-1)).toBe(`Bearer ${host.stored?.access_token}`);
    });

    h.it('a pre-registered client is used as is, never registered again', async () => {
      const world = createProtectedWorld();
      world.as.register('pre-registered', 'pre-secret-0123456789');
      await using source = connect(world, provider(world, { client: { client_id: 'pre-registered', client_secret: 'pre-secret-0123456789' } }));
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
      h.expect(world.as.log).not.toContain('register');
    });

    h.it('an expired access token is refreshed with the refresh token, and the call goes through', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using source = connect(world, host);
      const tool = pick(await source.tools(), 'whoami');
      const first = host.stored?.access_token;
      world.as.expireAccessTokens();
      h.expect(output(await run(h, tool, {}))).toContain('a reader');
      h.expect(world.as.log.at(-1)).toBe('refresh_token');
      h.expect(host.stored?.access_token).not.toBe(first);
      h.expect(host.authorizedScopes).toHaveLength(1);
    });

    h.it('a tool needing a larger scope steps up (403 insufficient_scope) and then works', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using source = connect(world, host);
      const tools = await source.tools();
      h.expect(output(await run(h, pick(tools, 'write_note'), {}))).toContain('written');
      h.expect(host.authorizedScopes).toEqual(['read', 'read write']);
      h.expect(output(await run(h, pick(tools, 'whoami'), {}))).toContain('a reader');
    });

    h.it('a token the authorization server bound to another resource is refused typed, after one resend', async () => {
      const world = createProtectedWorld();
      world.as.bindTo('https://elsewhere.test/mcp');
      await using source = connect(world, provider(world));
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('401 Unauthorized, challenge: Bearer');
      h.expect(message).toContain('error="invalid_token"');
      h.expect(message).toContain('the flow was not run again');
      // The first request carried no token, the one resend the new one; no refresh, no third try.
      h.expect(world.seen).toHaveLength(2);
      h.expect(world.seen[0]).toBeNull();
      h.expect(world.as.log).toEqual(['register', 'authorization_code']);
    });

    h.it('a refreshed token bound to another resource: one resend, the error names invalid_token', async () => {
      const world = createProtectedWorld();
      await using source = connect(world, provider(world));
      const tool = pick(await source.tools(), 'whoami');
      const before = world.seen.length;
      world.as.bindTo('https://elsewhere.test/mcp');
      world.as.expireAccessTokens();
      const result = output(await run(h, tool, {}));
      h.expect(result).toContain('error=\\"invalid_token\\"');
      h.expect(world.seen.length - before).toBe(2);
      h.expect(world.as.log.slice(2)).toEqual(['refresh_token']);
    });

    h.it('metadata naming another resource is refused before any token request', async () => {
      const world = createProtectedWorld({ metadataResource: 'https://elsewhere.test/mcp' });
      await using source = connect(world, provider(world));
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('https://elsewhere.test/mcp does not match expected https://mcp.test/mcp');
      h.expect(world.as.log).toEqual([]);
      h.expect(world.as.requests.filter((r) => r.startsWith('POST '))).toEqual([]);
      h.expect(world.seen).toEqual([null]);
    });

    h.it('a provider that throws fails typed, naming the method, never its message', async () => {
      for (const failIn of ['tokens', 'redirectToAuthorization'] as const) {
        const world = createProtectedWorld();
        await using source = connect(world, provider(world, { failIn }));
        const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
        h.expect(message).toContain(`http.authProvider's ${failIn}() failed`);
        h.expect(message).not.toMatch(/vault offline|no browser/);
      }
    });

    h.it('a redirect left for later fails typed without a resend; the next attempt, once authorized, works', async () => {
      const world = createProtectedWorld();
      const host = provider(world, { failIn: 'defer' });
      await using source = connect(world, host);
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('authorization was started');
      h.expect(world.seen).toHaveLength(1);
      host.failIn = undefined;
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
    });

    h.it('the provider wins over an authorization header from http.headers; other headers go to the MCP origin only', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using source = connect(world, host, { authorization: 'Bearer from-the-hook', 'x-tenant': 't1' });
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
      h.expect(world.seen.at(-1)).toBe(`Bearer ${host.stored?.access_token}`);
      h.expect(world.tenants.every((tenant) => tenant === 't1')).toBe(true);
      // The authorization server is another origin: the host's headers are not its business.
      h.expect(world.as.tenants.length).toBeGreaterThan(0);
      h.expect(world.as.tenants.every((tenant) => tenant === undefined)).toBe(true);
    });

    h.it('a server echoing the access token in an error body has it redacted', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using source = connect(world, host);
      const result = output(await run(h, pick(await source.tools(), 'leak'), {}));
      const token = host.stored?.access_token ?? 'missing';
      h.expect(result).toContain('[redacted]');
      h.expect(result).not.toContain(token);
      h.expect(result).not.toContain(token.slice(3, 23));
    });

    h.it('a provider failing after a token was issued leaves the token out of the error', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using source = connect(world, host);
      const tool = pick(await source.tools(), 'whoami');
      const token = host.stored?.access_token ?? 'missing';
      host.failIn = 'tokens';
      const result = output(await run(h, tool, {}));
      h.expect(result).toContain("http.authProvider's tokens() failed (Error)");
      h.expect(result).not.toContain(token.slice(3, 23));
    });

    h.it('a 403 without a provider fails the call typed, naming the insufficient_scope challenge', async () => {
      const world = createProtectedWorld();
      const host = provider(world);
      await using authorized = connect(world, host);
      await authorized.tools();
      const bearer = `Bearer ${host.stored?.access_token}`;
      await using source = connect(world, undefined, { authorization: bearer });
      const result = output(await run(h, pick(await source.tools(), 'write_note'), {}));
      h.expect(result).toContain('403 Forbidden, challenge: Bearer resource_metadata=');
      h.expect(result).toContain('scope=\\"read write\\", error=\\"insufficient_scope\\"');
      h.expect(result).not.toContain(bearer.slice(10, 30));
    });

    h.it('a machine client gets its token from the token endpoint itself (client credentials) and calls', async () => {
      const world = createProtectedWorld();
      const host = machine(world);
      await using source = connect(world, host);
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
      h.expect(world.as.log).toEqual(['client_credentials']);
    });

    h.it('close() after connect.timeout aborts a token request the endpoint never answers', async () => {
      const world = createProtectedWorld();
      world.as.tokenEndpoint({ stall: true });
      const source = connect(world, machine(world), {}, 300);
      await expectConfigError(h, () => source.tools(), 'connect.timeout');
      await source.close();
      // The request's own signal fired: over a socket that closes the connection.
      h.expect(world.as.held).toEqual(['aborted']);
    });

    // No connectMs here: nothing but close() itself can end the flow, so this fails if close()
    // leaves the token request (or the connect waiting on it) running.
    h.it('close() during the flow aborts a token request the endpoint never answers; no provider method runs after', async () => {
      const world = createProtectedWorld();
      world.as.tokenEndpoint({ stall: true });
      const host = machine(world);
      const source = connect(world, host);
      const listing = source.tools().then(
        () => 'listed',
        (error: unknown) => (h.lib.SourceError.is(error) ? error.code : String(error)),
      );
      await until(() => world.as.held[0] === 'stalled', 'the token request to be held');
      const started = Date.now();
      await source.close();
      h.expect(Date.now() - started).toBeLessThan(2_000);
      // The request's own signal fired before close() resolved, and the caller was told why.
      h.expect(world.as.held).toEqual(['aborted']);
      h.expect(await listing).toBe('source.closed');
      const after = host.calls.length;
      await sleep(200);
      h.expect(host.calls.slice(after)).toEqual([]);
      h.expect(host.calls).not.toContain('saveTokens');
      h.expect(world.as.log).toEqual([]);
    });

    h.it('close() while the provider still waits on the user resolves at once; the flow never calls the provider again', async () => {
      const world = createProtectedWorld();
      let consent: () => void = () => undefined;
      const host = provider(world);
      // A host whose redirect waits for the user, who consents only after close().
      host.redirectToAuthorization = async () => {
        host.calls.push('redirectToAuthorization');
        await new Promise<void>((resolve) => (consent = resolve));
      };
      const source = connect(world, host);
      const listing = source.tools().then(
        () => 'listed',
        (error: unknown) => (h.lib.SourceError.is(error) ? error.code : String(error)),
      );
      await until(() => host.calls.includes('redirectToAuthorization'), 'the redirect');
      const started = Date.now();
      await source.close();
      h.expect(Date.now() - started).toBeLessThan(2_000);
      h.expect(await listing).toBe('source.closed');
      const after = host.calls.length;
      consent();
      await sleep(200);
      h.expect(host.calls.slice(after)).toEqual([]);
      h.expect(world.seen).toEqual([null]);
    });

    h.it('a token answer that comes after close() never reaches the provider', async () => {
      const world = createProtectedWorld();
      world.as.tokenEndpoint({ lateMs: 600 });
      const host = machine(world);
      const source = connect(world, host, {}, 300);
      await expectConfigError(h, () => source.tools(), 'connect.timeout');
      await source.close();
      const before = host.calls.length;
      await until(() => world.as.held[0] === 'answered', 'the late token answer', 3_000);
      await sleep(100);
      h.expect(host.calls.slice(before)).toEqual([]);
      h.expect(host.stored).toBeUndefined();
      h.expect(world.as.log).toEqual(['client_credentials']);
    });

    h.it('a token request redirected to another origin is refused typed, and nothing is sent there', async () => {
      const world = createProtectedWorld();
      world.as.tokenEndpoint({ redirectTo: 'https://elsewhere.test' });
      await using source = connect(world, machine(world));
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('the OAuth request to https://auth.test/token was redirected to another origin, https://elsewhere.test');
      h.expect(world.elsewhere).toEqual([]);
      h.expect(message).not.toContain('machine-secret');
    });

    // Every request of the flow, not only the token's: each 3xx to another origin is refused
    // before anything is sent there; the registration's answer and the token's carry secrets.
    const flowRequests = [
      ['metadata', '/.well-known/oauth-authorization-server', machine],
      ['registration', '/register', (world: ProtectedWorld) => provider(world)],
      ['token', '/token', machine],
    ] as const;
    for (const [what, path, client] of flowRequests) {
      h.it(`a ${what} request redirected to another origin, by each of 301, 302, 303, 307 and 308, is refused typed, and nothing is sent there`, async () => {
        for (const status of [301, 302, 303, 307, 308] as const) {
          const world = createProtectedWorld();
          world.as.redirect(path, status, `https://elsewhere.test${path}`);
          await using source = connect(world, client(world));
          const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
          // The status leads what is compared, so a failure says which redirect got through.
          h.expect(`${status}: ${message}`).toContain(`the OAuth request to https://auth.test${path} was redirected to another origin, https://elsewhere.test;`);
          h.expect(world.elsewhere).toEqual([]);
          h.expect(message).not.toContain('machine-secret');
        }
      });
    }

    h.it('redirects within the authorization server\'s origin are followed: metadata by a 301, the token request by a 307', async () => {
      const world = createProtectedWorld();
      world.as.redirect('/.well-known/oauth-authorization-server', 301, 'https://auth.test/.well-known/oauth-authorization-server?redirected=1');
      world.as.redirect('/token', 307, 'https://auth.test/token?redirected=1');
      await using source = connect(world, machine(world));
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
      h.expect(world.as.requests.filter((r) => r === 'POST /token')).toEqual(['POST /token', 'POST /token']);
      h.expect(world.as.log).toEqual(['client_credentials']);
      h.expect(world.elsewhere).toEqual([]);
    });

    h.it('a step-up on the handshake itself (401, then 403 insufficient_scope) authorizes twice and connects', async () => {
      const world = createProtectedWorld({ requiredScope: 'read write' });
      const host = provider(world);
      await using source = connect(world, host);
      h.expect(output(await run(h, pick(await source.tools(), 'whoami'), {}))).toContain('a reader');
      h.expect(host.authorizedScopes).toEqual(['read', 'read write']);
    });

    h.it('a step-up that can never succeed names the server\'s challenge, on connect and on a call', async () => {
      const connecting = createProtectedWorld({ requiredScope: 'read write' });
      connecting.as.withhold('write');
      await using refused = connect(connecting, provider(connecting));
      const message = await expectSourceError(h, () => refused.tools(), 'source.unavailable');
      h.expect(message).toContain('403 Forbidden, challenge: Bearer resource_metadata=');
      h.expect(message).toContain('scope="read write", error="insufficient_scope"');
      h.expect(message).toContain('it was still refusing after 2 authorizations for one request');

      const calling = createProtectedWorld();
      calling.as.withhold('write');
      await using source = connect(calling, provider(calling));
      const result = output(await run(h, pick(await source.tools(), 'write_note'), {}));
      h.expect(result).toContain('403 Forbidden, challenge: Bearer');
      h.expect(result).toContain('scope=\\"read write\\", error=\\"insufficient_scope\\"');
      h.expect(result).toContain('it refused the token the http.authProvider step-up had just obtained');
    });

    h.it('a server that asks for more scope after every grant is refused after two authorizations, naming its challenge', async () => {
      const world = createProtectedWorld({ insatiable: true });
      const host = provider(world);
      await using source = connect(world, host);
      const message = await expectSourceError(h, () => source.tools(), 'source.unavailable');
      h.expect(message).toContain('still refusing after 2 authorizations for one request');
      h.expect(message).toContain('error="insufficient_scope"');
      h.expect(host.authorizedScopes).toEqual(['read', 'read more-1']);
    });
  });
}
